// Talks to the orrery view server. The token comes from the page address
// (?token=...) and travels with every request as a header.

const token = new URLSearchParams(window.location.search).get('token') ?? '';

/** An error the server explained (a bad report, a bad request). */
export class ServerError extends Error {}

async function get(endpoint, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    query.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  const response = await fetch(`./api/${endpoint}?${query}`, {
    headers: { 'X-Orrery-Token': token },
    cache: 'no-store',
  });
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ServerError(`The server answered ${response.status} without data.`);
  }
  if (!response.ok) throw new ServerError(body.error ?? `The server answered ${response.status}.`);
  return body;
}

/** Which run's trace the trace endpoints read (0, or 1 when comparing). */
let traceRun = 0;
export function setTraceRun(run) { traceRun = run; }
export function getTraceRun() { return traceRun; }
const traced = (params) => ({ ...params, run: traceRun });

/** Caches answers per request: the trees ask for the same selection often. */
const cache = new Map();
function cached(endpoint, params) {
  const key = `${endpoint}?${JSON.stringify(params)}`;
  if (!cache.has(key)) {
    const pending = get(endpoint, params);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return cache.get(key);
}

export const api = {
  info: () => cached('info', {}),
  header: () => cached('header', {}),
  /** Metric totals computed so far (null = still computing); never cached. */
  metrics: () => get('metrics', {}),
  callpaths: (metric, metricIncl) => cached('callpaths', { metric, metric_incl: metricIncl }),
  locations: (metric, metricIncl, callpath, callpathIncl) =>
    cached('locations', { metric, metric_incl: metricIncl, callpath, callpath_incl: callpathIncl }),
  heatmap: (metric, metricIncl, top, under = 'all') => cached('heatmap', { metric, metric_incl: metricIncl, top, under }),
  findings: () => cached('findings', {}),
  facts: () => cached('facts', {}),
  source: (callpath) => cached('source', { callpath }),
  /** The Cartesian process grid of the run whose trace is chosen. */
  topology: () => cached('topology', { run: traceRun }),
  /** {metric, under, top}: the group comparison's rows and the runs (groups of runs only). */
  groups: (params) => cached('groups', params),
  /** {group?}: the first report's function groups (load-imbalance analysis); with group, its values per process. */
  functionGroups: (params) => cached('function_groups', params),
  functionGroupWindows: (params) => cached('function_group_windows', params),
  /** {t0, t1, bins}: processes per activity over time, and the concurrency profile. */
  utilization: (params) => cached('utilization', traced(params)),
  /** {t0, t1, callpath?}: the sender × receiver matrix and message sizes. */
  communication: (params) => cached('communication', traced(params)),
  worstInstance: (rank, callpath, run = traceRun) => cached('worst_instance', { rank, callpath, run }),
  timelineInfo: (run = traceRun) => cached('timeline_info', { run }),
  /** {t0, t1, width, first_rank, ranks}: one window of the trace (never cached). */
  timeline: (params) => get('timeline', traced(params)),
  /** {t0, t1, first_rank, ranks, points}: resource samples per rank (never cached). */
  samples: (params) => get('samples', traced(params)),
  /** {rank, t0, t1, width}: one rank's instances as nested levels. */
  callstack: (params) => cached('callstack', traced(params)),
  timelineInstance: (rank, instance) => get('timeline_instance', traced({ rank, instance })),
};
