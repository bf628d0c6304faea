// The 3-D load-imbalance view of the Function groups tab: process × function
// group × time as bars (ECharts GL bar3D, loaded only when the view is first
// shown, so the viewer's first paint does not carry WebGL code). x = process,
// y = the second-level groups, ordered under their top group (a top group
// without second-level groups stands for itself), height = the group's time
// on the process. The group whose load is least similar to its parent's (the
// lowest `similarity`) is drawn in red: its imbalance is not its parent's.
// Drag to rotate, wheel to zoom.

import * as echarts from 'echarts/core';
import { format } from './values.js';

const TOP_COLOURS = ['#2563eb', '#f59e0b', '#16a34a', '#9333ea', '#0891b2', '#ea580c', '#64748b'];
const HIGHLIGHT = '#dc2626';

let glLoaded = null;
/** Loads and registers ECharts GL's bar3D once (a separate chunk). */
function loadGl() {
  if (!glLoaded) {
    glLoaded = Promise.all([import('echarts-gl/charts'), import('echarts-gl/components')])
      .then(([charts, components]) => echarts.use([charts.Bar3DChart, components.Grid3DComponent]));
  }
  return glLoaded;
}

/** Whether the browser can draw WebGL at all. */
export function hasWebGl() {
  try {
    const canvas = document.createElement('canvas');
    return Boolean(canvas.getContext('webgl') || canvas.getContext('experimental-webgl'));
  } catch {
    return false;
  }
}

/** The groups drawn as rows (indices into groups): second-level groups under their top group, childless top groups themselves. */
export function imbalanceRows(groups) {
  const rows = [];
  groups.forEach((g, i) => {
    if (g.parent >= 0) return;
    const children = groups.map((c, k) => (c.parent === i ? k : -1)).filter((k) => k >= 0);
    rows.push(...(children.length ? children : [i]));
  });
  return rows;
}

/** Of the drawn rows, the group with the lowest (finite) similarity to its parent, or -1. */
export function leastSimilar(groups, rows) {
  let best = -1;
  for (const g of rows) {
    const s = groups[g].similarity;
    if (Number.isFinite(s) && (best < 0 || s < groups[best].similarity)) best = g;
  }
  return best;
}

/** The bar3D data: per drawn row and process [process, row, seconds]; locations without a trace are left out. */
export function imbalanceData(rows, valuesByGroup) {
  const data = [];
  rows.forEach((g, r) => {
    (valuesByGroup[g] ?? []).forEach((v, p) => { if (v !== null && v !== undefined) data.push([p, r, v]); });
  });
  return data;
}

/**
 * Draws the 3-D bars into element; resolves with the ECharts instance (null when WebGL is
 * missing: the element then says so). The drawn data is on element.dataset and
 * window.__orreryImbalance3d (for the browser tests).
 */
export async function drawImbalance3d(element, locationName, groups, valuesByGroup, caption = '') {
  const rows = imbalanceRows(groups);
  const highlighted = leastSimilar(groups, rows);
  const data = imbalanceData(rows, valuesByGroup);
  const processes = (valuesByGroup[rows[0]] ?? []).map((_, l) => locationName(l));
  const hl = highlighted >= 0 ? groups[highlighted] : null;
  const heading = hl ? `Least similar to its parent: ${hl.name} (similarity ${hl.similarity.toFixed(3)})` : 'Time per process and group';
  const title = caption ? `${heading} · ${caption}` : heading;
  window.__orreryImbalance3d = { rows, highlighted, processes, data, title, caption };
  element.dataset.highlighted = String(highlighted);
  if (!hasWebGl()) {
    element.innerHTML = '<p class="note">The 3-D view needs WebGL, which this browser does not offer.</p>';
    element.dataset.imbalance3d = 'no-webgl';
    return null;
  }
  await loadGl();
  const tops = groups.map((g, i) => (g.parent < 0 ? i : -1)).filter((i) => i >= 0);
  const colourOf = (g) => {
    if (g === highlighted) return HIGHLIGHT;
    const top = groups[g].parent < 0 ? g : groups[g].parent;
    return TOP_COLOURS[tops.indexOf(top) % TOP_COLOURS.length];
  };
  const rowName = (g) => (groups[g].parent < 0 ? groups[g].name : `${groups[groups[g].parent].name} › ${groups[g].name}`);
  const chart = echarts.init(element, null, { renderer: 'canvas' });
  chart.setOption({
    title: {
      text: title,
      left: 8, top: 4, textStyle: { fontSize: 13, color: hl ? HIGHLIGHT : '#334155' },
    },
    tooltip: {
      formatter: (p) => `${escapeHtml(processes[p.value[0]])}<br>${escapeHtml(rowName(rows[p.value[1]]))}`
        + `<br>${escapeHtml(format('abs', p.value[2], 'sec'))}`,
    },
    xAxis3D: { type: 'category', name: 'process', data: processes },
    yAxis3D: { type: 'category', name: 'group', data: rows.map((g) => groups[g].name), axisLabel: { interval: 0 } },
    zAxis3D: { type: 'value', name: 'time', axisLabel: { formatter: (v) => format('abs', v, 'sec') } },
    grid3D: {
      boxWidth: Math.max(90, Math.min(200, 24 * processes.length)), boxDepth: Math.max(90, Math.min(200, 24 * rows.length)),
      boxHeight: 80, viewControl: { alpha: 20, beta: 40, distance: 270 }, light: { main: { intensity: 1.1, shadow: false }, ambient: { intensity: 0.35 } },
    },
    series: [{
      type: 'bar3D', shading: 'lambert', bevelSize: 0.1,
      data: data.map((d) => ({ value: d, itemStyle: { color: colourOf(rows[d[1]]), opacity: rows[d[1]] === highlighted ? 1 : 0.85 } })),
      emphasis: { label: { show: false } },
    }],
  });
  element.dataset.imbalance3d = String(data.length);
  return chart;
}

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
