// The Topology view: the Cartesian process grid the program created
// (MPI_Cart_create; /api/topology), each rank's cell coloured by the selected
// metric at the selected call path. 1-D grids are one row, 2-D grids rows ×
// columns, higher dimensions slices side by side (the last two coordinates
// inside a slice, the others numbered across).

import { format } from './values.js';

const TEXT = '#334155';

/** Where a rank's cell goes: [x, y] (slices of higher dimensions side by side, a column apart). */
function cellOf(coords, dims) {
  if (coords.length === 1) return [coords[0], 0];
  const n = coords.length;
  const [row, column] = [coords[n - 2], coords[n - 1]];
  let slice = 0;
  for (let d = 0; d < n - 2; ++d) slice = slice * dims[d] + coords[d];
  return [slice * (dims[n - 1] + 1) + column, row];
}

/** {option, csv}: `valueOfRank(rank)` is the selection's value on that rank (null when not a number). */
export function topologyView(topo, valueOfRank, unit, what) {
  const dims = topo.dims;
  const n = dims.length;
  const columns = n === 1 ? dims[0] : (dims[n - 1] + 1) * dims.slice(0, n - 2).reduce((a, b) => a * b, 1) - 1;
  const rows = n === 1 ? 1 : dims[n - 2];
  const data = topo.ranks.map(([rank, ...coords]) => {
    const [x, y] = cellOf(coords, dims);
    return { value: [x, y, valueOfRank(rank)], rank, coords };
  });
  const values = data.map((d) => d.value[2]).filter((v) => Number.isFinite(v));
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  const csv = [['rank', ...dims.map((_, d) => `coordinate ${d}`), `value (${unit})`],
    ...data.map((d) => [d.rank, ...d.coords, d.value[2]])];
  const periodic = (topo.periods ?? []).map((p, d) => (p ? `dimension ${d} wraps` : null)).filter(Boolean);
  return {
    csv,
    option: {
      title: { text: `${what} on the ${dims.join(' × ')} Cartesian grid (MPI_Cart_create)`, left: 8, top: 4,
        textStyle: { fontSize: 13, color: TEXT }, subtextStyle: { color: '#64748b' },
        subtext: `each cell a rank at its coordinates${n > 2 ? `; slices by coordinates 0…${n - 3}` : ''}${periodic.length ? ` · ${periodic.join(', ')}` : ''}` },
      tooltip: { formatter: ({ data: d }) => `rank ${d.rank} (${d.coords.join(', ')})<br>${format('abs', d.value[2], unit)}` },
      grid: { left: 48, right: 120, top: 64, bottom: 32 },
      xAxis: { type: 'category', data: Array.from({ length: columns }, (_, i) => String(i)), axisLabel: { color: TEXT },
        name: n === 1 ? 'coordinate 0' : `coordinate ${n - 1}`, nameLocation: 'middle', nameGap: 22 },
      yAxis: { type: 'category', data: Array.from({ length: rows }, (_, i) => String(i)), inverse: true, axisLabel: { color: TEXT },
        name: n === 1 ? '' : `coordinate ${n - 2}` },
      visualMap: { min, max: max > min ? max : min + 1, calculable: true, orient: 'vertical', right: 8, top: 'center',
        inRange: { color: ['#fff7ed', '#fdba74', '#ea580c', '#7c2d12'] }, formatter: (v) => format('abs', v, unit) },
      series: [{ type: 'heatmap', data, label: { show: true, color: '#fff', textBorderColor: '#0f172a', textBorderWidth: 2,
        lineHeight: 18, formatter: ({ data: d }) => `rank ${d.rank}\n${format('abs', d.value[2], unit)}` } }],
    },
  };
}
