// Colours of the trace's regions: computation cool, MPI warm, the
// measurement grey; within a kind, regions get distinct colours in the
// order of their definition (a categorical palette, then lighter and darker
// variants), so that `main` and `relax` never look alike. Red is kept for waits.

const COMPUTE = ['#2563eb', '#16a34a', '#9333ea', '#0891b2', '#65a30d', '#4f46e5', '#0d9488', '#c026d3',
  '#1e40af', '#15803d', '#7e22ce', '#0e7490'];
const MPI = ['#f59e0b', '#ea580c', '#d97706', '#fbbf24', '#c2410c', '#f97316', '#b45309', '#fcd34d'];
const MEASUREMENT = '#94a3b8';

function shade(hex, amount) {
  const n = parseInt(hex.slice(1), 16);
  const channel = (shift) => {
    const c = (n >> shift) & 255;
    return Math.round(amount > 0 ? c + (255 - c) * amount : c * (1 + amount));
  };
  return `rgb(${channel(16)}, ${channel(8)}, ${channel(0)})`;
}

/** One colour per region ({name, kind}), in the order given. */
export function regionColours(regions) {
  const seen = { compute: 0, mpi: 0 };
  return regions.map((region) => {
    if (region.kind === 'measurement') return MEASUREMENT;
    const palette = region.kind === 'mpi' ? MPI : COMPUTE;
    const k = seen[region.kind === 'mpi' ? 'mpi' : 'compute']++;
    const round = Math.floor(k / palette.length);
    const base = palette[k % palette.length];
    return round === 0 ? base : shade(base, round % 2 === 1 ? 0.35 : -0.3);
  });
}

/** The colours of the kinds in the utilization views. */
export const KIND_COLOURS = { compute: '#2563eb', mpi: '#f59e0b', measurement: MEASUREMENT, idle: '#e2e8f0' };
