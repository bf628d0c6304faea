// Value modes, number formatting and the colour scale shared by the trees
// and the charts.

export const MODES = [
  { id: 'abs', label: 'Absolute', needsOther: false },
  { id: 'root', label: '% of root', needsOther: false },
  { id: 'sel', label: '% of selection', needsOther: false },
  { id: 'diff', label: 'Difference', needsOther: true },
  { id: 'other', label: '% of other run', needsOther: true },
];

/**
 * The number shown for a value in a mode. `mine`/`theirs` are the two
 * reports' values, `root` the root total, `selection` the value of the
 * selection in the tree to the left. Returns null where undefined (x / 0).
 */
export function shown(mode, mine, theirs, root, selection) {
  switch (mode) {
    case 'root': return root !== 0 && root !== null ? (100 * mine) / root : null;
    case 'sel': return selection !== 0 && selection !== null ? (100 * mine) / selection : null;
    case 'diff': return mine - theirs;
    case 'other': return theirs !== 0 ? (100 * mine) / theirs : null;
    default: return mine;
  }
}

const UNIT_STEPS = {
  sec: [[1, 's'], [1e-3, 'ms'], [1e-6, 'µs'], [1e-9, 'ns']],
  bytes: [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB'], [1, 'B']],
};

// 343,912 s reads better as "343.9K s" than as 3.439e+5.
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 4 });

/** A percentage: small ones keep two significant digits (0.0042 %), never "0.00 %". */
export function formatPercent(value) {
  const magnitude = Math.abs(value);
  if (magnitude === 0) return '0 %';
  if (magnitude >= 100) return `${value.toFixed(1)} %`;
  if (magnitude >= 0.01) return `${value.toFixed(2)} %`;
  return `${Number(value.toPrecision(2))} %`;
}

/** Human-readable number for a mode; `unit` is the metric's unit. */
export function format(mode, value, unit) {
  if (value === null || Number.isNaN(value)) return '—';
  if (mode === 'root' || mode === 'sel' || mode === 'other') return formatPercent(value);
  const sign = mode === 'diff' && value > 0 ? '+' : '';
  const magnitude = Math.abs(value);
  if (magnitude === 0) return '0';
  const steps = UNIT_STEPS[unit];
  if (steps) {
    const [scale, name] = steps.find(([s]) => magnitude >= s) ?? steps[steps.length - 1];
    const scaled = value / scale;
    const digits = Math.abs(scaled) >= 1e4 ? COMPACT.format(scaled) : scaled.toPrecision(4).replace(/\.0+$|(\.\d*?)0+$/, '$1');
    return `${sign}${digits} ${name}`;
  }
  if (magnitude >= 1e4) return `${sign}${COMPACT.format(value)}`;
  return `${sign}${Number.isInteger(value) ? value : value.toPrecision(4)}`;
}

// A sequential ramp (pale to deep red) and a diverging one (blue = less,
// red = more), as rgb triples.
const SEQUENTIAL = [[239, 243, 255], [198, 219, 239], [254, 224, 139], [253, 141, 60], [215, 48, 31], [127, 0, 0]];
const DIVERGING = [[33, 102, 172], [103, 169, 207], [247, 247, 247], [239, 138, 98], [178, 24, 43]];

function ramp(colours, t) {
  const x = Math.min(1, Math.max(0, t)) * (colours.length - 1);
  const i = Math.min(colours.length - 2, Math.floor(x));
  const f = x - i;
  const c = colours[i].map((v, k) => Math.round(v + f * (colours[i + 1][k] - v)));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/**
 * Colour for a value: its share of what the mode relates it to (the root, or
 * the selection on the left), or, comparing runs, its change.
 */
export function colour(mode, mine, theirs, root, selection) {
  if (mode === 'diff') {
    const scale = Math.max(Math.abs(mine), Math.abs(theirs), 1e-300);
    return ramp(DIVERGING, 0.5 + (0.5 * (mine - theirs)) / scale);
  }
  if (mode === 'other') {
    if (theirs === 0) return mine === 0 ? ramp(DIVERGING, 0.5) : ramp(DIVERGING, 1);
    return ramp(DIVERGING, 0.5 + 0.5 * Math.tanh(Math.log(Math.max(mine, 1e-300) / theirs)));
  }
  const whole = mode === 'sel' ? selection : root;
  return ramp(SEQUENTIAL, whole > 0 ? Math.abs(mine) / whole : 0);
}

/** The colours of the legend for a mode (for the charts' visual maps too). */
export function legendColours(mode) {
  return (mode === 'diff' || mode === 'other' ? DIVERGING : SEQUENTIAL).map((c) => `rgb(${c.join(',')})`);
}
