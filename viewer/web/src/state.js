// The view's state and its round trip through the URL hash, so that a view
// (selection, expanded nodes, mode, filter, chart) can be shared or reloaded.

export function defaultState() {
  return {
    metric: 0,
    metricExpanded: new Set(),
    callpath: 0,
    callpathExpanded: new Set(),
    location: null,
    locationExpanded: new Set(),
    mode: 'abs',
    query: '',
    sort: 'tree',
    /** The view below the trees; the page opens on the findings. */
    chart: 'findings',
    /** What the communication matrix shows (views.js MATRIX_MEASURES). */
    measure: 'bytes',
    /** The timeline's window [t0, t1] in seconds, or null for the whole run. */
    timeWindow: null,
    /** Comparing: whose trace the timeline, utilization and communication show (0 or 1). */
    traceRun: 0,
    /** The resource curve drawn under each rank's timeline row ('none' or resources.js RESOURCE_MEASURES id). */
    curve: 'none',
    /** Whether the timeline outlines the call paths on the critical path. */
    critical: false,
  };
}

/** Every view below the trees (the tabs). */
export const VIEWS = ['findings', 'groups', 'fgroups', 'bars', 'heat', 'radar', 'box', 'profile', 'source', 'timeline', 'stack', 'util', 'comm', 'res', 'topo'];

const ids = (set) => [...set].sort((a, b) => a - b).join(',');
const parseIds = (text) => new Set((text ?? '').split(',').filter((s) => /^\d+$/.test(s)).map(Number));

/** The hash for a state; metrics are named (stable across reports), rows numbered. */
export function toHash(state, metrics) {
  const p = new URLSearchParams();
  p.set('metric', metrics[state.metric]?.name ?? '');
  if (state.metricExpanded.size) p.set('mx', [...state.metricExpanded].map((m) => metrics[m].name).join(','));
  p.set('cp', String(state.callpath));
  if (state.callpathExpanded.size) p.set('cx', ids(state.callpathExpanded));
  if (state.location !== null) p.set('loc', String(state.location));
  if (state.locationExpanded.size) p.set('lx', ids(state.locationExpanded));
  p.set('mode', state.mode);
  if (state.query) p.set('q', state.query);
  if (state.sort !== 'tree') p.set('sort', state.sort);
  p.set('chart', state.chart);
  if (state.measure !== 'bytes') p.set('mm', state.measure);
  if (state.traceRun) p.set('tr', String(state.traceRun));
  if (state.curve !== 'none') p.set('rc', state.curve);
  if (state.critical) p.set('crit', '1');
  if (state.timeWindow) p.set('tw', state.timeWindow.map((t) => t.toPrecision(12)).join(','));
  return `#${p}`;
}

/** Reads a hash back, ignoring whatever does not fit this report. */
export function fromHash(hash, metrics, counts, modes) {
  const state = defaultState();
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const byName = new Map(metrics.map((m, i) => [m.name, i]));
  if (byName.has(p.get('metric'))) state.metric = byName.get(p.get('metric'));
  for (const name of (p.get('mx') ?? '').split(',')) if (byName.has(name)) state.metricExpanded.add(byName.get(name));
  const row = (key, limit) => {
    const v = Number(p.get(key));
    return p.has(key) && Number.isInteger(v) && v >= 0 && v < limit ? v : null;
  };
  state.callpath = row('cp', counts.callpaths) ?? counts.defaultCallpath;
  state.callpathExpanded = new Set([...parseIds(p.get('cx'))].filter((c) => c < counts.callpaths));
  state.location = row('loc', counts.processNodes);
  state.locationExpanded = new Set([...parseIds(p.get('lx'))].filter((l) => l < counts.processNodes));
  if (modes.includes(p.get('mode'))) state.mode = p.get('mode');
  state.query = p.get('q') ?? '';
  if (p.get('sort') === 'value') state.sort = 'value';
  if (VIEWS.includes(p.get('chart'))) state.chart = p.get('chart');
  if (['bytes', 'messages', 'late_sender'].includes(p.get('mm'))) state.measure = p.get('mm');
  if (p.get('tr') === '1') state.traceRun = 1;
  if (['memory', 'cpu', 'faults', 'switches'].includes(p.get('rc'))) state.curve = p.get('rc');
  state.critical = p.get('crit') === '1';
  const window = (p.get('tw') ?? '').split(',').map(Number);
  if (window.length === 2 && window.every(Number.isFinite) && window[1] > window[0]) state.timeWindow = window;
  return state;
}
