// The Function groups view: the report's two-level function groups of the
// load-imbalance analysis (`/groups`, docs/analyzer.md "Function groups") as
// a table — per group its total, mean, maximum, imbalance (max − mean) / max
// and load similarity to its parent — and the selected group's time per
// process as bars (ECharts) with their mean. Top groups fold open and shut.
// The "3-D" toggle swaps the bars for process × group × time bars of every
// group (imbalance_3d.js). Comparing two runs, a switch shows either run's
// groups (each run's own report, processes named by it).

import * as echarts from 'echarts/core';
import { api } from './api.js';
import { format } from './values.js';
import { drawImbalance3d } from './imbalance_3d.js';
import { formatTime } from './timeline.js';

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const percent = (v) => `${(100 * v).toFixed(1)} %`;
/** The 3-D view's time windows: equal slices of the run. */
const WINDOWS = 8;

/** The top group that loses the most time to imbalance (max − mean), else the first group. */
function defaultGroup(groups) {
  let best = 0;
  groups.forEach((g, i) => {
    if (g.parent < 0 && g.max - g.mean > groups[best].max - groups[best].mean) best = i;
  });
  return best;
}

export class FunctionGroupsPage {
  constructor(element) {
    this.element = element;
    this.selected = null;
    this.folded = new Set();
    this.answers = [null, null];  // per run
    this.run = 0;
    this.window = null;  // 3-D: a time window of the run (null: the whole run)
    this.chart = null;
    this.threeD = false;
    element.addEventListener('click', (event) => {
      if (document.body.dataset.chart !== 'fgroups') return;
      const runButton = event.target.closest('button.fgroups-run');
      if (runButton) {
        this.run = Number(runButton.dataset.run);
        this.window = null;
        this.selected = null;
        this.folded.clear();
        this.render(this.model, this.reports);
        return;
      }
      const windowButton = event.target.closest('button.fgroups-window');
      if (windowButton) {
        this.window = windowButton.dataset.window === '' ? null : Number(windowButton.dataset.window);
        this.render(this.model, this.reports);
        return;
      }
      if (event.target.closest('button.fgroups-3d')) {
        this.threeD = !this.threeD;
        this.render(this.model, this.reports);
        return;
      }
      const toggle = event.target.closest('button.toggle');
      const row = event.target.closest('tr.fgroup');
      if (!row) return;
      const g = Number(row.dataset.row);
      if (toggle) {
        if (this.folded.has(g)) this.folded.delete(g); else this.folded.add(g);
      } else {
        this.selected = g;
      }
      this.render(this.model, this.reports);
    });
  }

  /** A process of the shown run: its own report's name for it. */
  locationName(model, l) {
    return this.shown?.location_names?.[l] ?? model.locationName(l);
  }

  /** Comparing: which run's groups are shown. */
  runSwitch() {
    if ((this.reports?.length ?? 0) < 2) return '';
    return `<div class="fgroups-runs">Groups of ${this.reports.map((label, run) => `<button class="small fgroups-run" data-run="${run}"`
      + ` aria-pressed="${run === this.run}">${escapeHtml(label)}</button>`).join(' ')}</div>`;
  }

  async render(model, reports = this.reports) {
    this.model = model;
    this.reports = reports;
    const run = this.run;
    let answer;
    try {
      if (!this.answers[run]) this.answers[run] = await api.functionGroups({ run });
      answer = this.answers[run];
      if (answer.available && this.selected === null) this.selected = defaultGroup(answer.groups);
      if (answer.available) answer = { ...answer, ...(await api.functionGroups({ run, group: this.selected })) };
    } catch (error) {
      if (document.body.dataset.chart !== 'fgroups') return;
      this.element.innerHTML = `<p class="note">The function groups could not be read: ${escapeHtml(error.message)}</p>`;
      this.element.dataset.fgroups = 'error';
      return;
    }
    if (document.body.dataset.chart !== 'fgroups') return;
    this.disposeChart();
    if (!answer.available) {
      this.element.innerHTML = `${this.runSwitch()}<p class="note">No function groups: ${escapeHtml(answer.reason)}. `
        + 'They are written by orrery-analyze (load-imbalance analysis); analyze the experiment again.</p>';
      this.element.dataset.fgroups = 'none';
      return;
    }
    this.shown = answer;
    const parts = [this.runSwitch(), '<div class="fgroups-page"><section><table class="profile-table fgroups-table">',
      '<tr><th>group</th><th>total</th><th>mean</th><th>max (where)</th><th>imbalance</th><th>similarity</th></tr>'];
    answer.groups.forEach((g, i) => {
      if (g.parent >= 0 && this.folded.has(g.parent)) return;
      const hasChildren = g.parent < 0 && answer.groups.some((c) => c.parent === i);
      const toggle = hasChildren ? `<button class="toggle" aria-label="fold">${this.folded.has(i) ? '▸' : '▾'}</button>` : '';
      parts.push(`<tr class="fgroup${g.parent >= 0 ? ' child' : ''}${i === this.selected ? ' selected' : ''}" data-row="${i}"`
        + ` data-name="${escapeHtml(g.name)}" data-total="${g.total}" data-imbalance="${g.imbalance}" data-similarity="${g.similarity}">`
        + `<td class="name">${toggle}${escapeHtml(g.name)}</td><td class="num">${escapeHtml(format('abs', g.total, 'sec'))}</td>`
        + `<td class="num">${escapeHtml(format('abs', g.mean, 'sec'))}</td>`
        + `<td class="num">${escapeHtml(format('abs', g.max, 'sec'))} (${escapeHtml(this.locationName(model, g.max_location))})</td>`
        + `<td class="num">${percent(g.imbalance)}</td><td class="num">${g.similarity.toFixed(3)}</td></tr>`);
    });
    parts.push('</table><p class="muted">Imbalance: (max − mean) / max over the processes. Similarity: how alike the '
      + 'group\'s per-process time is to its parent\'s (top groups: to the whole run), 0–1; a group with high imbalance '
      + 'and high similarity drives the run\'s imbalance.</p></section><div class="fgroups-side">'
      + `<button class="small fgroups-3d" aria-pressed="${this.threeD}" title="Process × function group × time bars of every group">3-D</button>`
      + '<div class="fgroups-chart"></div></div></div>');
    this.element.innerHTML = parts.join('');
    if (this.threeD) await this.draw3d(model, answer);
    else this.drawBars(model, answer);
    this.element.dataset.fgroups = String(answer.groups.length);
    this.element.dataset.fgroupsRun = String(run);
  }

  /** Every group's time per process (one cached request per group), drawn in 3-D. */
  async draw3d(model, answer) {
    const element = this.element.querySelector('.fgroups-chart');
    let values;
    try {
      values = (await Promise.all(answer.groups.map((_, g) => api.functionGroups({ run: this.run, group: g }))))
        .map((a) => a.values);
    } catch (error) {
      element.innerHTML = `<p class="note">The groups' values could not be read: ${escapeHtml(error.message)}</p>`;
      return;
    }
    // The time axis: the groups' time per process in windows of the run, from the trace.
    let windows = null;
    let why = '';
    try {
      windows = await api.functionGroupWindows({ run: this.run, windows: WINDOWS });
    } catch (error) {
      why = error.message;
    }
    if (document.body.dataset.chart !== 'fgroups' || !this.threeD || !element.isConnected) return;
    const picker = document.createElement('div');
    picker.className = 'fgroups-windows';
    if (windows) {
      const button = (w, label, title) => `<button class="small fgroups-window" data-window="${w ?? ''}"`
        + ` aria-pressed="${w === this.window}" title="${escapeHtml(title)}">${label}</button>`;
      picker.innerHTML = `Time: ${button(null, 'whole run', 'the whole run (the report\'s values)')}`
        + windows.windows.map(([t0, t1], w) => button(w, String(w + 1), `${formatTime(t0)} – ${formatTime(t1)}`)).join('');
    } else {
      picker.innerHTML = `<span class="muted">Whole run only (no time windows: ${escapeHtml(why)})</span>`;
    }
    element.before(picker);
    let caption = '';
    if (windows && this.window !== null) {
      values = windows.values[this.window];
      const [t0, t1] = windows.windows[this.window];
      caption = `window ${this.window + 1}/${windows.windows.length} (${formatTime(t0)}–${formatTime(t1)})`;
    }
    element.dataset.window = this.window === null ? 'all' : String(this.window);
    this.chart = await drawImbalance3d(element, (l) => this.locationName(model, l), answer.groups, values, caption);
  }

  drawBars(model, answer) {
    const group = answer.groups[this.selected];
    const names = answer.values.map((_, l) => this.locationName(model, l));
    this.chart = echarts.init(this.element.querySelector('.fgroups-chart'), null, { renderer: 'canvas' });
    this.chart.setOption({
      animation: false,
      title: { text: `${group.name}: time per process`, left: 8, top: 4, textStyle: { fontSize: 13, color: '#334155' } },
      grid: { left: 70, right: 16, top: 40, bottom: 50 },
      tooltip: { trigger: 'axis', valueFormatter: (v) => format('abs', v, 'sec') },
      xAxis: { type: 'category', data: names, axisLabel: { rotate: names.length > 8 ? 45 : 0 } },
      yAxis: { type: 'value', axisLabel: { formatter: (v) => format('abs', v, 'sec') } },
      series: [{ type: 'bar', data: answer.values, itemStyle: { color: '#3b82f6' },
        markLine: { symbol: 'none', precision: 15, data: [{ yAxis: group.mean, name: 'mean' }],
          label: { position: 'insideEndTop', formatter: () => `mean ${format('abs', group.mean, 'sec')}` },
          lineStyle: { color: '#ef4444' } } }],
    });
    window.__orreryFunctionGroups = { run: this.run, selected: this.selected, values: answer.values, names };  // for the browser tests
  }

  disposeChart() {
    if (this.chart) this.chart.dispose();
    this.chart = null;
  }

  /** CSV: the groups, then the selected group's time per process. */
  csv(model) {
    const a = this.shown;
    if (!a?.available) return [['group']];
    return [['group', 'parent', 'total', 'mean', 'max', 'max at', 'imbalance', 'similarity'],
      ...a.groups.map((g) => [g.name, g.parent >= 0 ? a.groups[g.parent].name : '', g.total, g.mean, g.max,
        this.locationName(model, g.max_location), g.imbalance, g.similarity]),
      [], ['process', `${a.groups[a.selected].name} (s)`], ...a.values.map((v, l) => [this.locationName(model, l), v])];
  }
}
