// Resource curves from the samples `orrery run --sampling-interval` records
// (/api/samples): memory (resident set size), CPU use (CPU seconds per
// second, from the accumulated CPU time), page faults and context switches
// per second. Drawn as a panel of their own (one line per rank) and, in the
// timeline, as a curve in the lower part of each rank's row.

import { formatTime } from './timeline.js';

const TEXT = '#334155';
const MiB = 1024 * 1024;

/** What can be drawn from the samples: a value per sample (point) or per interval between samples (rate). */
export const RESOURCE_MEASURES = [
  { id: 'memory', label: 'Memory (resident set)', unit: 'MiB', point: (v) => v[1] / MiB },
  { id: 'cpu', label: 'CPU use', unit: 'CPU s/s', rate: (a, b) => (b[2] - a[2]) / 1e9 },
  { id: 'faults', label: 'Page faults', unit: '/s', rate: (a, b) => (b[3] - a[3]) + (b[4] - a[4]) },
  { id: 'switches', label: 'Context switches', unit: '/s', rate: (a, b) => (b[5] - a[5]) + (b[6] - a[6]) },
];

/**
 * A measure's curve from one rank's samples ([time, v0 … v5] each): [[time, value]], a rate
 * drawn at the end of each interval between samples (step 'end').
 */
export function resourceCurve(measure, samples) {
  if (measure.point) return samples.map((s) => [s[0], measure.point(s)]);
  const out = [];
  for (let i = 1; i < samples.length; ++i) {
    const dt = samples[i][0] - samples[i - 1][0];
    if (dt > 0) out.push([samples[i][0], measure.rate(samples[i - 1], samples[i]) / dt]);
  }
  return out;
}

/** The Resources panel: one chart per measure, stacked, one line per rank; {option, csv}. */
export function resourcesView(data) {
  const grids = RESOURCE_MEASURES.length;
  const height = 84 / grids;  // below the title, in % of the chart
  const series = [];
  const csv = [['rank', 'time (s)', ...RESOURCE_MEASURES.map((m) => `${m.label} (${m.unit})`)]];
  RESOURCE_MEASURES.forEach((measure, g) => {
    for (const row of data.ranks) {
      series.push({ name: `rank ${row.rank}`, type: 'line', symbol: 'none', step: measure.rate ? 'end' : false,
        xAxisIndex: g, yAxisIndex: g, lineStyle: { width: 1.2 }, data: resourceCurve(measure, row.samples) });
    }
  });
  for (const row of data.ranks) {
    const curves = RESOURCE_MEASURES.map((m) => new Map(resourceCurve(m, row.samples)));
    for (const s of row.samples) csv.push([row.rank, s[0], ...curves.map((c) => c.get(s[0]) ?? '')]);
  }
  const samples = data.ranks.reduce((n, r) => n + r.count, 0);
  return {
    csv,
    option: {
      title: { text: 'Resources over time, per rank', left: 8, top: 4, textStyle: { fontSize: 13, color: TEXT },
        subtext: `${samples} samples in ${formatTime(data.t1 - data.t0)} (orrery run --sampling-interval) · rates between consecutive samples`,
        subtextStyle: { color: '#64748b' } },
      tooltip: { trigger: 'axis', valueFormatter: (v) => (typeof v === 'number' ? v.toPrecision(4) : v) },
      legend: { type: 'scroll', top: 4, right: 8, width: '40%', data: data.ranks.map((r) => `rank ${r.rank}`) },
      grid: RESOURCE_MEASURES.map((_, g) => ({ left: 72, right: 24, top: `${14 + g * height}%`, height: `${height - 7}%` })),
      xAxis: RESOURCE_MEASURES.map((_, g) => ({ type: 'value', gridIndex: g, min: data.t0, max: data.t1,
        axisLabel: { show: g === grids - 1, color: TEXT, formatter: formatTime } })),
      yAxis: RESOURCE_MEASURES.map((m, g) => ({ type: 'value', gridIndex: g, name: `${m.label} (${m.unit})`,
        nameTextStyle: { align: 'left', color: TEXT }, splitNumber: 2, axisLabel: { color: TEXT } })),
      series,
    },
  };
}

/**
 * Draws a measure under each rank's row of the timeline (its lower 40 %), scaled to
 * the largest value among the rows drawn; returns how many points were drawn.
 */
export function drawRowCurves(ctx, timeline, data, measureId) {
  const measure = RESOURCE_MEASURES.find((m) => m.id === measureId);
  if (!measure || !data?.sampled) return 0;
  const curves = data.ranks.map((row) => [row.rank, resourceCurve(measure, row.samples)]);
  const top = Math.max(0, ...curves.flatMap(([, c]) => c.map((p) => p[1])));
  if (!(top > 0)) return 0;
  const band = timeline.rowHeight * 0.4;
  let points = 0;
  ctx.save();
  for (const [rank, curve] of curves) {
    if (curve.length === 0) continue;
    const bottom = timeline.rowY(rank) + timeline.rowHeight - 1;
    ctx.beginPath();
    curve.forEach(([t, v], i) => {
      const x = timeline.xOf(t);
      const y = bottom - (v / top) * band;
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    });
    // A white halo keeps the curve readable over any region colour.
    ctx.strokeStyle = 'rgba(255,255,255,0.85)';
    ctx.lineWidth = 3;
    ctx.stroke();
    ctx.strokeStyle = '#0f172a';
    ctx.lineWidth = 1.25;
    ctx.stroke();
    points += curve.length;
  }
  ctx.restore();
  return points;
}
