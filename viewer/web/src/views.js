// The options of the charts over the trace and over the per-process
// statistics: utilization and the concurrency profile, the communication
// matrix with the message-size histogram, and box plots of call paths
// across processes. Each builder returns {option, csv} for Charts.show().

import { KIND_COLOURS } from './palette.js';
import { formatTime } from './timeline.js';
import { format } from './values.js';

const TEXT = '#334155';
const KINDS = [['compute', 'computing'], ['mpi', 'in MPI'], ['measurement', 'in measurement']];

function title(text, subtext = '') {
  return { text, subtext, left: 8, top: 4, textStyle: { fontSize: 13, color: TEXT }, subtextStyle: { color: '#64748b' } };
}

/**
 * Utilization (mean processes per kind in each bin, stacked) above the
 * concurrency profile (time during which exactly k processes were in MPI / computing).
 */
export function utilizationView(data) {
  const bin = (data.t1 - data.t0) / data.bins;
  const mid = (k) => data.t0 + (k + 0.5) * bin;
  const series = KINDS.map(([kind, label]) => ({
    name: label, type: 'line', stack: 'ranks', areaStyle: { opacity: 0.85 }, symbol: 'none', step: 'middle',
    lineStyle: { width: 0 }, color: KIND_COLOURS[kind], xAxisIndex: 0, yAxisIndex: 0,
    data: data.counts[kind].map((v, k) => [mid(k), v]),
  }));
  const levels = data.concurrency.mpi.map((_, k) => String(k));
  for (const [kind, label] of KINDS.slice(0, 2)) {
    series.push({ name: `${label}: time with k processes`, type: 'bar', xAxisIndex: 1, yAxisIndex: 1,
      color: KIND_COLOURS[kind], data: data.concurrency[kind] });
  }
  const csv = [['bin start (s)', 'bin end (s)', ...KINDS.map(([, l]) => `processes ${l}`)],
    ...data.counts.compute.map((_, k) => [data.t0 + k * bin, data.t0 + (k + 1) * bin,
      ...KINDS.map(([kind]) => data.counts[kind][k])])];
  return {
    csv,
    option: {
      title: title('Utilization: processes computing / in MPI / in measurement over time',
        `${formatTime(data.t1 - data.t0)} in ${data.bins} bins of ${formatTime(bin)} · below: how long k of ${data.ranks} processes were in MPI / computing at once`),
      tooltip: { trigger: 'axis', valueFormatter: (v) => (typeof v === 'number' ? v.toFixed(2) : v) },
      legend: { top: 4, right: 8, data: KINDS.map(([, l]) => l) },
      grid: [{ left: 64, right: 24, top: 72, bottom: '38%' }, { left: 64, right: 24, bottom: 24, height: '20%' }],
      xAxis: [
        { type: 'value', min: data.t0, max: data.t1, gridIndex: 0, axisLabel: { color: TEXT, formatter: formatTime } },
        { type: 'category', data: levels, gridIndex: 1, name: 'k', axisLabel: { color: TEXT } },
      ],
      yAxis: [
        { type: 'value', min: 0, max: data.ranks, gridIndex: 0, name: 'processes', axisLabel: { color: TEXT } },
        { type: 'value', gridIndex: 1, splitNumber: 2, axisLabel: { color: TEXT, formatter: formatTime } },
      ],
      series,
    },
  };
}

export const MATRIX_MEASURES = [
  { id: 'bytes', label: 'Bytes', column: 2, unit: 'bytes' },
  { id: 'messages', label: 'Messages', column: 3, unit: 'occ' },
  { id: 'late_sender', label: 'Late Sender time', column: 4, unit: 'sec' },
];

/** Sender (rows) × receiver (columns) for one measure, and the message sizes. */
export function communicationView(data, measureId, what) {
  const measure = MATRIX_MEASURES.find((m) => m.id === measureId) ?? MATRIX_MEASURES[0];
  const ranks = Array.from({ length: data.ranks }, (_, r) => String(r));
  let max = 0;
  const cells = data.cells.map((c) => {
    max = Math.max(max, c[measure.column]);
    return [c[1], c[0], c[measure.column]];
  });
  const sizes = data.sizes.map((s) => (s.high === 0 ? '0 B' : `${format('abs', s.low, 'bytes')}–${format('abs', s.high, 'bytes')}`));
  const csv = [['sender', 'receiver', 'bytes', 'messages', 'late sender time (s)'],
    ...data.cells.map((c) => [c[0], c[1], c[2], c[3], c[4]])];
  return {
    csv,
    option: {
      title: title(`Communication: ${measure.label} from sender (row) to receiver (column)`,
        `${what} · ${formatTime(data.t1 - data.t0)} from ${formatTime(data.t0)} · right: message sizes`),
      tooltip: {
        formatter: (p) => (p.seriesType === 'heatmap'
          ? `rank ${p.value[1]} → rank ${p.value[0]}: ${format('abs', p.value[2], measure.unit)}`
          : `${p.name}: ${p.value} messages`),
      },
      grid: [{ left: 56, top: 60, bottom: 40, width: '52%' }, { right: 24, top: 60, bottom: 70, width: '30%' }],
      xAxis: [
        { type: 'category', data: ranks, name: 'receiver', gridIndex: 0, axisLabel: { color: TEXT } },
        { type: 'category', data: sizes, gridIndex: 1, axisLabel: { color: TEXT, rotate: 35, fontSize: 10 } },
      ],
      yAxis: [
        { type: 'category', data: ranks, name: 'sender', inverse: true, gridIndex: 0, axisLabel: { color: TEXT } },
        { type: 'value', name: 'messages', gridIndex: 1, axisLabel: { color: TEXT } },
      ],
      visualMap: { min: 0, max: max || 1, calculable: true, orient: 'vertical', left: '58%', top: 60, seriesIndex: 0,
        inRange: { color: ['#eff6ff', '#93c5fd', '#2563eb', '#1e3a8a'] }, formatter: (v) => format('abs', v, measure.unit) },
      series: [
        { type: 'heatmap', data: cells, xAxisIndex: 0, yAxisIndex: 0, progressive: 0 },
        { type: 'bar', data: data.sizes.map((s) => s.messages), xAxisIndex: 1, yAxisIndex: 1, color: '#64748b' },
      ],
    },
  };
}

/** Box plots: per call path, its values across processes (stats from stats.js). */
export function boxplotView(rows, unit, heading) {
  const csv = [['call path', 'min', 'q1', 'median', 'q3', 'max', 'mean', 'stddev', 'processes'],
    ...rows.map(({ label, stats: s }) => [label, s.min, s.q1, s.median, s.q3, s.max, s.mean, s.stddev, s.count])];
  return {
    csv,
    option: {
      title: title(heading, 'box: quartiles · whiskers: min and max · ◆ mean'),
      tooltip: {
        trigger: 'item',
        formatter: (p) => {
          const s = rows[p.dataIndex]?.stats;
          if (!s) return '';
          const f = (v) => format('abs', v, unit);
          return `${rows[p.dataIndex].label}<br>min ${f(s.min)} · q1 ${f(s.q1)} · median ${f(s.median)}`
            + `<br>q3 ${f(s.q3)} · max ${f(s.max)}<br>mean ${f(s.mean)} · stddev ${f(s.stddev)}`;
        },
      },
      grid: { left: 200, right: 32, top: 56, bottom: 32 },
      yAxis: { type: 'category', data: rows.map((r) => r.label), inverse: true,
        axisLabel: { color: TEXT, fontSize: 11, width: 190, overflow: 'truncate' } },
      xAxis: { type: 'value', axisLabel: { color: TEXT, formatter: (v) => format('abs', v, unit) } },
      series: [
        { type: 'boxplot', data: rows.map(({ stats: s }) => [s.min, s.q1, s.median, s.q3, s.max]),
          itemStyle: { color: '#dbeafe', borderColor: '#2563eb' } },
        { type: 'line', symbol: 'diamond', symbolSize: 9, lineStyle: { width: 0 }, color: '#dc2626',
          data: rows.map(({ stats: s }, i) => [s.mean, i]) },
      ],
    },
  };
}
