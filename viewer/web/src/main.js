// orrery view: three coupled trees (metric -> call path -> process), value
// modes, charts of the selection, and the view kept in the URL hash.

import './style.css';
import { api, getTraceRun, ServerError, setTraceRun } from './api.js';
import { Charts } from './charts.js';
import { exportView } from './exports.js';
import { FindingsPage } from './findings.js';
import { FunctionGroupsPage } from './function_groups.js';
import { GroupsPage } from './groups.js';
import { SourcePage } from './source.js';
import { buildModel, distinctPathLabels, filterCallpaths } from './model.js';
import { ProfilePage } from './profiles.js';
import { defaultState, fromHash, toHash } from './state.js';
import { Timeline } from './timeline.js';
import { TreePanel } from './trees.js';
import { MODES, legendColours, shown } from './values.js';
import { boxplotView, communicationView, MATRIX_MEASURES, utilizationView } from './views.js';
import { describe } from './stats.js';
import { RESOURCE_MEASURES, resourcesView } from './resources.js';
import { callStackView } from './call_stack_view.js';
import { topologyView } from './topology_view.js';

/** Views drawn by ECharts in #chart, and views that are HTML in #page. */
const CHART_VIEWS = new Set(['bars', 'heat', 'radar', 'box', 'util', 'comm', 'res', 'stack', 'topo']);
const PAGE_VIEWS = new Set(['findings', 'profile', 'groups', 'source', 'fgroups']);
/** Views drawn from a trace (comparing: the chosen run's). */
const TRACE_VIEWS = new Set(['timeline', 'util', 'comm', 'res', 'stack', 'topo']);
/** Views that need the heat-map rows (the call paths under the selection, per process). */
const HEAT_VIEWS = new Set(['heat', 'box', 'profile']);

const $ = (selector) => document.querySelector(selector);
const sum = (values) => values.reduce((a, b) => a + b, 0);

let model;
let info;
let metricTotals;
let state = defaultState();
let filter = { visible: null, match: null, forced: null };
let generation = 0;
let charts;
let timeline;
let findingsPage;
let profilePage;
let groupsPage;
let functionGroupsPage;
let sourcePage;
const panels = {};

function showError(error) {
  const banner = $('#error');
  banner.textContent = error instanceof ServerError || error instanceof Error ? error.message : String(error);
  banner.hidden = false;
}

function clearError() {
  $('#error').hidden = true;
}

const hasOther = () => info.reports.length > 1;
const metricIsLeaf = (m) => model.metricTree.children[m].length === 0;
const metricShownExpanded = (m) => !metricIsLeaf(m) && state.metricExpanded.has(m);
const callpathShownExpanded = (c) => model.callTree.children[c].length > 0
  && (state.callpathExpanded.has(c) || Boolean(filter.forced?.has(c)));

/** A metric row's value over the whole program: inclusive if collapsed; null while computing. */
function metricValue(m, expanded, totals) {
  if (!totals) return 0;
  const rows = expanded ? [m] : model.metricSubtree(m);
  if (rows.some((r) => totals[r] === null || totals[r] === undefined)) return null;
  return sum(rows.map((r) => totals[r]));
}

/** Asks for the metric totals until all are known, repainting the metric tree as they arrive. */
async function pollMetricTotals() {
  while (!metricTotals.complete) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    try {
      metricTotals = await api.metrics();
    } catch (error) {
      showError(error);
      return;
    }
    renderMetricTree();
    if (metricTotals.complete) render();
  }
}

function rootTotal() {
  return metricValue(model.metricRoot[state.metric], false, metricTotals.values);
}

async function fetchSelection() {
  const metricIncl = !metricShownExpanded(state.metric);
  const callpathIncl = !callpathShownExpanded(state.callpath);
  const callpath = state.callpath === model.allId ? 'all' : state.callpath;
  const [answer, locations] = await Promise.all([
    api.callpaths(state.metric, metricIncl),
    api.locations(state.metric, metricIncl, callpath, callpathIncl),
  ]);
  const under = state.callpath === model.allId ? 'all' : state.callpath;
  const heat = HEAT_VIEWS.has(state.chart)
    ? await api.heatmap(state.metric, metricIncl, state.chart === 'heat' ? charts.heatmapRows() : 15, under) : null;
  return { calls: withVirtualRoot(answer), locations, heat };
}

/** Appends the virtual root's values (the roots' sum; nothing of its own). */
function withVirtualRoot(calls) {
  if (model.allId === null) return calls;
  const extend = ({ exclusive, inclusive }) => ({
    exclusive: [...exclusive, 0],
    inclusive: [...inclusive, sum(model.callTree.children[model.allId].map((r) => inclusive[r]))],
  });
  return { ...extend(calls), other: calls.other ? extend(calls.other) : undefined };
}

function renderMetricTree() {
  const { values, other } = metricTotals;
  panels.metric.render({
    roots: model.metricTree.roots,
    children: (m) => model.metricTree.children[m],
    label: (m) => model.metrics[m].display_name || model.metrics[m].name,
    title: (m) => model.metricTitle(m),
    otherOnly: (m) => model.metricOtherOnly(m),
    expanded: (m) => state.metricExpanded.has(m),
    selected: state.metric,
    value: (m, expanded) => ({ mine: metricValue(m, expanded, values), theirs: metricValue(m, expanded, other) }),
    unit: (m) => model.metrics[m].unit,
    root: (m) => metricValue(model.metricRoot[m], false, values),
    // Nothing is to the left of the metric tree: its selection is the root.
    selection: (m) => metricValue(model.metricRoot[m], false, values),
    mode: state.mode,
    sortByValue: state.sort === 'value',
    visible: null,
    info: true,
  });
}

function renderCallTree(calls) {
  const pending = { mine: null, theirs: null };
  const selected = metricValue(state.metric, metricShownExpanded(state.metric), metricTotals.values);
  const unit = model.metrics[state.metric].unit;
  panels.call.render({
    roots: model.callTree.roots,
    children: (c) => model.callTree.children[c],
    label: (c) => model.callpathLabel(c),
    title: (c) => model.callpathTitle(c),
    otherOnly: (c) => model.callpathOtherOnly(c),
    expanded: (c) => state.callpathExpanded.has(c),
    selected: state.callpath,
    value: (c, expanded) => (!calls ? pending : {
      mine: expanded ? calls.exclusive[c] : calls.inclusive[c],
      theirs: calls.other ? (expanded ? calls.other.exclusive[c] : calls.other.inclusive[c]) : 0,
    }),
    unit: () => unit,
    root: () => rootTotal(),
    selection: selected,
    mode: state.mode,
    sortByValue: state.sort === 'value',
    ...filter,
  });
}

function renderProcessTree(calls, locations) {
  const c = state.callpath;
  const expanded = callpathShownExpanded(c);
  const selected = !calls ? null : expanded ? calls.exclusive[c] : calls.inclusive[c];
  const unit = model.metrics[state.metric].unit;
  const n = model.locationCount;
  const valueOf = (values, id, open) => {
    if (!locations) return null;
    if (!values) return 0;
    if (id < n) return values[id];
    return open ? 0 : sum(model.processTree.children[id].map((l) => values[l]));
  };
  panels.process.render({
    roots: model.processTree.roots,
    children: (id) => model.processTree.children[id],
    label: (id) => model.processLabel(id),
    title: (id) => model.processTitle(id),
    otherOnly: (id) => model.processOtherOnly(id),
    expanded: (id) => state.locationExpanded.has(id),
    selected: state.location,
    value: (id, open) => ({ mine: valueOf(locations?.values, id, open), theirs: valueOf(locations?.other, id, open) }),
    unit: () => unit,
    root: () => rootTotal(),
    selection: selected,
    mode: state.mode,
    sortByValue: state.sort === 'value',
    visible: null,
  });
  return selected;
}

/** Shows the timeline instead of the charts (it keeps its own window and requests). */
function showTimeline(visible) {
  $('#timeline').hidden = !visible;
  if (!visible) return;
  if (!timeline.info) {
    timeline.load(state.timeWindow);
  } else if (String(timeline.window) !== String(state.timeWindow ?? timeline.fullWindow())) {
    timeline.setWindow(state.timeWindow);
  } else {
    timeline.layout();
    timeline.request();
  }
}

/** Selects a call path from the timeline: its ancestors open so that it is in sight. */
function selectCallpathFromTimeline(c) {
  state.callpath = c;
  for (const a of model.callpathAncestors(c)) state.callpathExpanded.add(a);
  render().then(() => document.querySelector('#call-tree .row.selected')?.scrollIntoView({ block: 'nearest' }));
}

/** Selects a metric (with its sub-metrics) and a call path from the Groups view. */
function selectFromGroups(m, c) {
  state.metric = m;
  state.metricExpanded.delete(m);
  for (let p = model.metrics[m].parent; p >= 0; p = model.metrics[p].parent) state.metricExpanded.add(p);
  selectCallpathFromTimeline(c);
}

/** Selects the process of a rank (its first location) from the timeline. */
function selectRankFromTimeline(rank) {
  const l = model.header.locations.findIndex((loc) => loc.rank === rank && !loc.other_only);
  if (l < 0 || state.location === l) return;
  state.location = l;
  revealProcess(state, l);
  render().then(() => panels.process.revealSelection());
}

/** Opens the host group of location `l` in `target`'s process tree, so that it is in sight. */
function revealProcess(target, l) {
  const group = model.processTree.roots.find((g) => model.processTree.children[g].includes(l));
  if (group !== undefined) target.locationExpanded.add(group);
}

/** The rank of the selected process (a location), or null. */
function selectedRank() {
  return state.location !== null && state.location < model.locationCount
    ? model.header.locations[state.location].rank : null;
}

/** Shows a sentence in the page area instead of a chart (no data, bad input). */
function showNote(text) {
  const page = $('#page');
  page.hidden = false;
  $('#chart').hidden = true;
  page.innerHTML = `<p class="note">${text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
}

/** The time window of the trace views: the timeline's (kept in the URL), else the whole run. */
function traceWindow(traceInfo) {
  return state.timeWindow ?? [0, traceInfo.duration > 0 ? traceInfo.duration : 1];
}

/** Per-process rows for the statistics: the selection (as in the process tree), then its hottest call paths. */
function statisticRows(locations, heat) {
  const n = model.locationCount;
  const mine = (values) => values.slice(0, n);
  const rows = [{ label: `${model.callpathPath(state.callpath)}${callpathShownExpanded(state.callpath) ? ' (exclusive)' : ''}`,
    callpath: state.callpath, values: mine(locations.values) }];
  const labels = distinctPathLabels(heat.callpaths.map((c) => model.callpathPath(c)));
  heat.callpaths.forEach((c, k) => {
    if (c !== state.callpath) rows.push({ label: `${labels[k]} (exclusive)`, callpath: c, values: mine(heat.values[k]) });
  });
  return rows;
}

/** A chart option whose subtitle starts with a warning about the trace, if any. */
function warned(option, warning) {
  if (!warning) return option;
  return { ...option, title: { ...option.title, subtext: `⚠ ${warning}\n${option.title.subtext}`,
    subtextStyle: { color: '#b45309' } } };
}

async function renderTraceView(view) {
  const traceInfo = await api.timelineInfo().catch((error) => ({ available: false, reason: error.message }));
  if (!traceInfo.available) {
    const name = { util: 'utilization', comm: 'communication', res: 'resources', stack: 'call-stack' }[view];
    showNote(`No ${name} view: it is computed from the trace. ${traceInfo.reason}`);
    return;
  }
  const [t0, t1] = traceWindow(traceInfo);
  try {
    if (view === 'stack') {
      // The selected process's rank (else rank 0), over the timeline's window.
      const rank = selectedRank() !== null && selectedRank() < traceInfo.ranks.length ? selectedRank() : 0;
      const width = Math.max(200, Math.round($('#chart').clientWidth - 88));
      const data = await api.callstack({ rank, t0, t1, width });
      window.__orreryView = data;
      const { option, csv } = callStackView(data, traceInfo.regions, traceInfo.ranks[rank] ?? `rank ${rank}`);
      charts.show(warned(option, traceInfo.warning), csv);
      charts.chart.off('click');
      charts.chart.on('click', async ({ value }) => {
        if (document.body.dataset.chart !== 'stack' || !Array.isArray(value) || value[4] < 0) return;
        const found = await api.timelineInstance(rank, value[4]).catch(() => null);
        if (found && found.callpath !== null) selectCallpathFromTimeline(found.callpath);
      });
    } else if (view === 'res') {
      const data = await api.samples({ t0, t1, points: 2000 });
      window.__orreryView = data;
      if (!data.sampled) {
        showNote(data.reason);
        return;
      }
      const { option, csv } = resourcesView(data);
      charts.show(warned(option, traceInfo.warning), csv);
    } else if (view === 'util') {
      const data = await api.utilization({ t0, t1, bins: 400 });
      window.__orreryView = data;
      const { option, csv } = utilizationView(data);
      charts.show(warned(option, traceInfo.warning), csv);
    } else {
      const params = { t0, t1 };
      if (state.callpath !== model.allId) params.callpath = state.callpath;
      const data = await api.communication(params);
      window.__orreryView = data;
      const what = state.callpath === model.allId ? 'all call paths'
        : `messages sent under ${model.callpathPath(state.callpath)}`;
      const { option, csv } = communicationView(data, state.measure, what);
      charts.show(warned(option, traceInfo.warning), csv);
    }
  } catch (error) {
    showNote(`This view could not be computed: ${error.message}`);
  }
}

async function renderCharts(calls, locations, heat, selection) {
  const view = state.chart;
  document.body.dataset.chart = view;
  $('#chart').hidden = !CHART_VIEWS.has(view);
  $('#page').hidden = !PAGE_VIEWS.has(view);
  $('#view-options').hidden = view !== 'comm';
  // Comparing, the trace views show either run's trace.
  $('#trace-choice').hidden = !hasOther() || !TRACE_VIEWS.has(view);
  $('#trace-run').value = String(state.traceRun);
  $('#curve-choice').hidden = view !== 'timeline';
  $('#timeline-curve').value = state.curve;
  timeline.setCurve(state.curve);
  $('#critical-choice').hidden = view !== 'timeline';
  $('#critical-path').checked = state.critical;
  timeline.setCritical(state.critical);
  if (getTraceRun() !== state.traceRun) {
    setTraceRun(state.traceRun);
    timeline.reset();
  }
  // Tree colours mean something only in the per-process charts.
  $('.legend-box').style.visibility = ['bars', 'heat', 'radar'].includes(view) ? '' : 'hidden';
  $('#export-svg').disabled = !CHART_VIEWS.has(view);
  // A root stands for the whole program: marking it would cover every row.
  timeline.setCallpath(state.callpath < model.callpathCount && model.header.callpaths.parent[state.callpath] >= 0
    ? state.callpath : null);
  timeline.setSelectedRank(selectedRank());
  showTimeline(view === 'timeline');
  if (view === 'timeline') return;
  if (view === 'findings') {
    // Not awaited: the findings may read every wait-state metric of a large
    // report; the trees are final without them (the page marks data-findings when done).
    findingsPage.render(model, (f) => toHash(findingState(f), model.metrics), info.reports);
    return;
  }
  if (view === 'source') {
    await sourcePage.render(model, state.callpath);
    return;
  }
  if (view === 'topo') {
    const topo = await api.topology().catch((error) => ({ available: false, reason: error.message }));
    window.__orreryView = topo;
    if (!topo.available) {
      showNote(`No topology view: ${topo.reason}`);
      return;
    }
    // Comparing, the grid is the chosen run's, coloured by that run's values.
    const values = state.traceRun === 1 && locations.other ? locations.other : locations.values;
    const byRank = new Map();
    model.header.locations.forEach((loc, l) => byRank.set(loc.rank, (byRank.get(loc.rank) ?? 0) + (values[l] ?? 0)));
    const metric = model.metrics[state.metric];
    const what = `${metric.display_name || metric.name} at ${model.callpathLabel(state.callpath)}`;
    const { option, csv } = topologyView(topo, (rank) => byRank.get(rank) ?? null, metric.unit, what);
    charts.show(option, csv);
    return;
  }
  if (view === 'groups') {
    await groupsPage.render({ model, metric: state.metric, callpath: state.callpath });
    return;
  }
  if (view === 'fgroups') {
    await functionGroupsPage.render(model, info.reports);
    return;
  }
  if (view === 'util' || view === 'comm' || view === 'res' || view === 'stack') {
    await renderTraceView(view);
    return;
  }
  const metricUnit = model.metrics[state.metric].unit;
  const metricName = model.metrics[state.metric].display_name || model.metrics[state.metric].name;
  if (view === 'profile') {
    profilePage.render({ model, calls, selectedCallpath: state.callpath, statRows: statisticRows(locations, heat),
      unit: metricUnit, metricName, total: rootTotal() });
    return;
  }
  if (view === 'box') {
    const rows = statisticRows(locations, heat).map((r) => ({ ...r, stats: describe(r.values) }));
    const { option, csv } = boxplotView(rows, metricUnit, `${metricName}: across processes, per call path`);
    charts.show(option, csv);
    return;
  }
  const metric = model.metrics[state.metric];
  const unit = metric.unit;
  const names = Array.from({ length: model.locationCount }, (_, l) => model.locationName(l));
  const what = `${metric.display_name || metric.name} at ${model.callpathLabel(state.callpath)}`;
  const mine = locations.values;
  const theirs = locations.other ?? null;
  if (state.chart === 'bars') {
    const modeValues = mine.map((v, l) => shown(state.mode, v, theirs ? theirs[l] : 0, rootTotal(), selection));
    charts.bars({
      names, shownValues: modeValues, mode: state.mode, unit, reports: info.reports,
      otherValues: theirs && state.mode === 'abs' ? theirs : null,
      selected: state.location !== null && state.location < model.locationCount ? state.location : null,
      title: `${what}: per process (${MODES.find((m) => m.id === state.mode).label})`,
    });
  } else if (state.chart === 'heat') {
    // Comparing, the difference modes show both runs' cells (all processes of each).
    const heatMode = heat.other && (state.mode === 'diff' || state.mode === 'other') ? state.mode : 'abs';
    const how = { abs: 'exclusive', diff: 'exclusive, this run − other run', other: 'exclusive, % of other run' };
    charts.heatmap({
      names, unit, rows: heat.values, otherRows: heat.other ?? null, mode: heatMode,
      callpathNames: distinctPathLabels(heat.callpaths.map((c) => model.callpathPath(c))),
      title: `${metric.display_name || metric.name}: hottest call paths under ${model.callpathLabel(state.callpath)} × processes (${how[heatMode]})`,
    });
  } else {
    charts.radar({ names, values: mine, otherValues: theirs, reports: info.reports,
      title: `${what}: each process's share` });
  }
}

function renderLegend() {
  const colours = legendColours(state.mode);
  $('#legend').style.background = `linear-gradient(to right, ${colours.join(',')})`;
  const diverging = state.mode === 'diff' || state.mode === 'other';
  $('#legend-low').textContent = diverging ? 'less than other run' : '0';
  $('#legend-high').textContent = diverging ? 'more than other run'
    : state.mode === 'sel' ? '100 % of selection' : '100 % of root';
}

function renderSelection() {
  const metric = model.metrics[state.metric];
  const callpath = model.callpathPath(state.callpath);
  const where = state.location === null ? 'all processes' : model.processLabel(state.location);
  $('#selection').textContent = `${metric.display_name || metric.name}`
    + `${metricShownExpanded(state.metric) ? ' (exclusive)' : ''} › ${callpath}`
    + `${callpathShownExpanded(state.callpath) ? ' (exclusive)' : ''} › ${where}`;
}

async function render() {
  const mine = ++generation;
  document.body.dataset.busy = '1';
  history.replaceState(null, '', toHash(state, model.metrics));
  document.querySelectorAll('#modes button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.mode === state.mode)));
  document.querySelectorAll('#chart-tabs button').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.chart === state.chart)));
  $('#sort').checked = state.sort === 'value';
  $('#matrix-measure').value = state.measure;
  renderLegend();
  if (window.__orreryFirstPaint === undefined) {
    // Paint the trees at once with what is ready ("computing…" elsewhere):
    // right after start the server may still be reading the cube.
    renderMetricTree();
    renderCallTree(null);
    renderProcessTree(null, null);
    renderSelection();
    window.__orreryFirstPaint = performance.now();
  }
  try {
    const { calls, locations, heat } = await fetchSelection();
    if (mine !== generation) return;
    clearError();
    renderMetricTree();
    renderCallTree(calls);
    const selection = renderProcessTree(calls, locations);
    renderSelection();
    await renderCharts(calls, locations, heat, selection);
    if (mine !== generation) return;
    window.__orreryValuesPaint ??= performance.now();
    // "ready" means every number on the page is final (tests and benchmark wait for it).
    if (metricTotals.complete) document.body.dataset.ready = String(mine);
    delete document.body.dataset.busy;
  } catch (error) {
    if (mine === generation) {
      showError(error);
      delete document.body.dataset.busy;
    }
  }
}

/** The state a finding selects: its metric, call path (in sight) and most affected process. */
function findingState(f) {
  const next = { ...state, metricExpanded: new Set(state.metricExpanded), callpathExpanded: new Set(state.callpathExpanded) };
  const m = model.metrics.findIndex((metric) => metric.name === f.metric);
  if (m >= 0) {
    next.metric = m;
    next.metricExpanded.delete(m);
  }
  if (f.callpath !== null) {
    next.callpath = f.callpath;
    for (const a of model.callpathAncestors(f.callpath)) next.callpathExpanded.add(a);
  }
  next.locationExpanded = new Set(state.locationExpanded);
  next.location = f.locations.length ? f.locations[0] : null;
  if (next.location !== null) revealProcess(next, next.location);
  next.chart = 'bars';
  return next;
}

/** Follows a finding: selects it and, with a trace, zooms the timeline to its worst instance. */
async function openFinding(f) {
  const next = findingState(f);
  // Findings are the first run's: its trace shows their worst instance.
  next.traceRun = 0;
  const traceInfo = await api.timelineInfo(0).catch(() => ({ available: false }));
  if (traceInfo.available && f.callpath !== null && next.location !== null) {
    try {
      const rank = model.header.locations[next.location].rank;
      const worst = await api.worstInstance(rank, f.callpath, 0);
      if (worst.found) {
        const margin = Math.max((worst.end - worst.begin) * 0.25, 1e-7);
        next.timeWindow = [Math.max(0, worst.begin - margin), Math.min(traceInfo.duration, worst.end + margin)];
        next.chart = 'timeline';
        document.body.dataset.worst = JSON.stringify(worst);
      }
    } catch (error) {
      showError(error);
    }
  }
  state = next;
  await render();
  if (state.chart === 'timeline') timeline.reveal(selectedRank());
  panels.call.revealSelection();
  panels.process.revealSelection();
}

function toggle(set, id) {
  if (set.has(id)) set.delete(id); else set.add(id);
}

function showMetricInfo(m) {
  const metric = model.metrics[m];
  $('#info-title').textContent = metric.display_name || metric.name;
  $('#info-name').textContent = `${metric.name} · unit: ${metric.unit}`;
  $('#info-description').textContent = metric.description || 'No description.';
  $('#info-diagnosis').textContent = metric.diagnosis || 'No diagnosis given.';
  $('#metric-info').showModal();
}

function wireControls() {
  panels.metric = new TreePanel($('#metric-tree'), {
    onSelect: (m) => { state.metric = m; render(); },
    onToggle: (m) => { toggle(state.metricExpanded, m); render(); },
    onInfo: (m) => showMetricInfo(m),
  });
  panels.call = new TreePanel($('#call-tree'), {
    onSelect: (c) => { state.callpath = c; render(); },
    onToggle: (c) => { if (!filter.forced?.has(c)) { toggle(state.callpathExpanded, c); render(); } },
  });
  panels.process = new TreePanel($('#process-tree'), {
    onSelect: (id) => { state.location = state.location === id ? null : id; render(); },
    onToggle: (id) => { toggle(state.locationExpanded, id); render(); },
  });
  const modes = $('#modes');
  for (const mode of MODES) {
    if (mode.needsOther && !hasOther()) continue;
    const button = document.createElement('button');
    button.dataset.mode = mode.id;
    button.textContent = mode.label;
    button.addEventListener('click', () => { state.mode = mode.id; render(); });
    modes.append(button);
  }
  document.querySelectorAll('#chart-tabs button').forEach((b) => b.addEventListener('click', () => {
    state.chart = b.dataset.chart;
    render();
  }));
  for (const measure of MATRIX_MEASURES) {
    const option = document.createElement('option');
    option.value = measure.id;
    option.textContent = measure.label;
    $('#matrix-measure').append(option);
  }
  info.reports.forEach((label, run) => {
    const option = document.createElement('option');
    option.value = String(run);
    option.textContent = label;
    $('#trace-run').append(option);
  });
  for (const [id, label] of [['none', 'none'], ...RESOURCE_MEASURES.map((m) => [m.id, m.label])]) {
    const option = document.createElement('option');
    option.value = id;
    option.textContent = label;
    $('#timeline-curve').append(option);
  }
  $('#timeline-curve').addEventListener('change', (event) => { state.curve = event.target.value; render(); });
  $('#critical-path').addEventListener('change', (event) => { state.critical = event.target.checked; render(); });
  $('#trace-run').addEventListener('change', (event) => {
    state.traceRun = Number(event.target.value);
    state.timeWindow = null;  // the other run's trace has its own length
    render();
  });
  $('#matrix-measure').addEventListener('change', (event) => { state.measure = event.target.value; render(); });
  for (const [button, type] of [['#export-png', 'png'], ['#export-svg', 'svg'], ['#export-csv', 'csv']]) {
    $(button).addEventListener('click', () => exportView(type, {
      view: state.chart, charts, timeline,
      csv: () => (state.chart === 'findings' ? findingsPage.csv(model) : state.chart === 'groups' ? groupsPage.csv()
        : state.chart === 'fgroups' ? functionGroupsPage.csv(model)
        : state.chart === 'profile' ? profilePage.csv() : state.chart === 'source' ? sourcePage.csv()
          : state.chart === 'timeline' ? timeline.csv() : charts.csvRows),
    }));
  }
  wireResizer($('#resizer'), $('.charts'));
  let typing;
  $('#search').addEventListener('input', (event) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.query = event.target.value;
      filter = filterCallpaths(model, state.query);
      render();
    }, 150);
  });
  $('#sort').addEventListener('change', (event) => { state.sort = event.target.checked ? 'value' : 'tree'; render(); });
  $('#copy-link').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
      $('#copy-link').textContent = 'Link copied';
    } catch {
      window.prompt('Copy this link (it includes the access token):', window.location.href);
    }
    setTimeout(() => { $('#copy-link').textContent = 'Copy link'; }, 1500);
  });
  $('#help').addEventListener('click', () => $('#help-dialog').showModal());
  document.querySelectorAll('dialog .close').forEach((b) => b.addEventListener('click', () => b.closest('dialog').close()));
  window.addEventListener('hashchange', () => {
    if (window.location.hash !== toHash(state, model.metrics)) loadStateFromHash();
  });
}

/** Dragging the bar above the charts resizes them. */
function wireResizer(handle, panel) {
  let start = null;
  handle.addEventListener('mousedown', (event) => {
    start = { y: event.clientY, height: panel.getBoundingClientRect().height };
    event.preventDefault();
  });
  window.addEventListener('mousemove', (event) => {
    if (!start) return;
    const height = Math.max(160, Math.min(window.innerHeight - 160, start.height - (event.clientY - start.y)));
    panel.style.flex = `0 0 ${height}px`;
  });
  window.addEventListener('mouseup', () => { start = null; });
}

function loadStateFromHash() {
  state = fromHash(window.location.hash, model.metrics,
    { callpaths: model.callNodeCount, defaultCallpath: model.callTree.roots[0], processNodes: model.processNodeCount },
    MODES
      .filter((m) => !m.needsOther || hasOther()).map((m) => m.id));
  // Groups of runs open on their comparison unless the link names a view.
  if (info.groups && !/(^#|&)chart=/.test(window.location.hash)) state.chart = 'groups';
  if (!info.groups && state.chart === 'groups') state.chart = 'findings';
  $('#search').value = state.query;
  filter = filterCallpaths(model, state.query);
  render();
}

async function start() {
  document.body.dataset.busy = '1';
  try {
    const [header, infoAnswer, totals] = await Promise.all([api.header(), api.info(), api.metrics()]);
    model = buildModel(header);
    info = infoAnswer;
    metricTotals = totals;
  } catch (error) {
    showError(error);
    delete document.body.dataset.busy;
    return;
  }
  $('#reports').textContent = hasOther() ? `${info.reports[0]} compared with ${info.reports[1]}` : info.reports[0];
  if (hasOther() && info.unmatched.callpaths > 0) {
    $('#reports').textContent += ` · ${info.unmatched.callpaths} call paths not in the other run`;
  }
  if (hasOther() && info.unmatched.other_callpaths > 0) {
    $('#reports').textContent += ` · ${info.unmatched.other_callpaths} only in the other run`;
  }
  // Processes and metrics only the other run has (e.g. a run with more ranks).
  for (const [count, what] of hasOther()
    ? [[info.unmatched.other_locations, ['process', 'processes']], [info.unmatched.other_metrics, ['metric', 'metrics']]] : []) {
    if (count > 0) $('#reports').textContent += ` · ${count} ${what[count === 1 ? 0 : 1]} only in the other run`;
  }
  // Comparing, the runs' command lines (from their run.json) stand under the selection.
  if (hasOther()) {
    api.facts().then((facts) => {
      const line = facts.runs.map((r, i) => `${info.reports[i]}: ${r.command ?? '(command not recorded)'}`).join('   ·   ');
      $('#commands').textContent = line;
      $('#commands').title = line;
      $('#commands').hidden = false;
    }, () => {});
  }
  const a = model.header.attributes;
  $('#reports').title = `${a.experiment}\n${a.creator}\n${a.created}`;
  charts = new Charts($('#chart'));
  timeline = new Timeline($('#timeline'), {
    onWindow: (window) => {
      const full = timeline.fullWindow();
      state.timeWindow = window[0] === full[0] && window[1] === full[1] ? null : window;
      history.replaceState(null, '', toHash(state, model.metrics));
    },
    onCallpath: (c) => selectCallpathFromTimeline(c),
    onRank: (rank) => selectRankFromTimeline(rank),
  });
  findingsPage = new FindingsPage($('#page'), { onOpen: (f) => openFinding(f) });
  profilePage = new ProfilePage($('#page'), { onCallpath: (c) => selectCallpathFromTimeline(c) });
  sourcePage = new SourcePage($('#page'));
  groupsPage = new GroupsPage($('#page'), { onSelect: (m, c) => selectFromGroups(m, c) });
  $('#chart-tabs button[data-chart="groups"]').hidden = !info.groups;
  functionGroupsPage = new FunctionGroupsPage($('#page'));
  // The function groups' tab only for reports that have them.
  Promise.all(info.reports.map((_, run) => api.functionGroups({ run }).catch(() => ({}))))
    .then((answers) => { $('#chart-tabs button[data-chart="fgroups"]').hidden = !answers.some((a) => a.available); });
  window.__orreryTimeline = timeline;  // for the browser tests
  window.__orreryCharts = charts;
  wireControls();
  loadStateFromHash();
  pollMetricTotals();
}

start();
