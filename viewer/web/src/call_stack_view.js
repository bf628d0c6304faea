// The Call stack view: one rank's region instances over the timeline's
// window as nested levels (the outermost region on top, callees below), as
// /api/callstack answers them; instances narrower than a pixel come merged
// (drawn hatched-light, their count and time in the tooltip). ECharts custom
// series; the wheel zooms within the answer.

import { regionColours } from './palette.js';
import { formatTime } from './timeline.js';

const TEXT = '#334155';

/** {option, csv} for Charts.show(); `regions` are timeline_info's. */
export function callStackView(data, regions, rankName) {
  const colours = regionColours(regions);
  const items = [];
  data.levels.forEach((level, depth) => {
    for (const [begin, end, region, instance, busy, pieces] of level) {
      items.push({ value: [depth, begin, end, region, instance, busy, pieces],
        itemStyle: { color: colours[region], opacity: pieces > 1 ? 0.55 : 1 } });
    }
  });
  const levels = Array.from({ length: Math.max(1, data.depth) }, (_, d) => String(d));
  const renderItem = (params, api) => {
    const depth = api.value(0);
    const [x0, y] = api.coord([api.value(1), depth]);
    const [x1] = api.coord([api.value(2), depth]);
    const height = api.size([0, 1])[1] * 0.86;
    return { type: 'rect', shape: { x: x0, y: y - height / 2, width: Math.max(1, x1 - x0), height },
      style: api.style(), emphasis: { style: { stroke: '#0f172a', lineWidth: 1 } } };
  };
  const csv = [['depth', 'begin (s)', 'end (s)', 'region', 'instance', 'time (s)', 'instances merged'],
    ...items.map(({ value: [d, b, e, r, i, busy, n] }) => [d, b, e, regions[r]?.name ?? r, i, busy, n])];
  return {
    csv,
    option: {
      title: { text: `Call stack of ${rankName}: nested regions over time`, left: 8, top: 4,
        textStyle: { fontSize: 13, color: TEXT }, subtextStyle: { color: '#64748b' },
        subtext: `${formatTime(data.t1 - data.t0)} · ${data.depth} levels, outermost on top · pale: instances narrower than a pixel, merged · click: select the call path · wheel: zoom` },
      tooltip: { formatter: ({ value: [depth, b, e, r, instance, busy, pieces] }) => (pieces > 1
        ? `${pieces} instances merged at depth ${depth} (mostly ${regions[r]?.name}): ${formatTime(busy)} in ${formatTime(e - b)}`
        : `${regions[r]?.name} · depth ${depth}<br>${formatTime(b)} – ${formatTime(e)} (${formatTime(e - b)})${instance < 0 ? '' : ''}`) },
      grid: { left: 64, right: 24, top: 64, bottom: 40 },
      xAxis: { type: 'value', min: data.t0, max: data.t1, axisLabel: { color: TEXT, formatter: formatTime } },
      yAxis: { type: 'category', data: levels, inverse: true, name: 'depth', axisLabel: { color: TEXT } },
      dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter' }],
      series: [{ type: 'custom', renderItem, encode: { x: [1, 2], y: 0 }, data: items }],
    },
  };
}
