// The viewer in a real browser (Debian chromium via playwright-core).
// node browser_test.mjs --scenario single|diff --orrery BIN --fixture BIN
//   --node-modules DIR --out DIR [--report A.h5 --other B.h5]
// Every value checked on the page is compared with `orrery stat --format json`.
// Screenshots go to --out.

import path from 'node:path';
import {
  act, artifactsDir, check, failed, launchBrowser, near, parseArgs, startViewer, stat, treeValues, writeFixture, finish, openPage,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, args.scenario));
const reportA = args.report ?? writeFixture(args.fixture, path.join(out, 'a.h5'),
  ['--callpaths', '80', '--locations', args.scenario === 'diff' ? '14' : '16', '--seed', '3',
    ...(args.scenario === 'diff' ? ['--without-metric', 'wait_at_barrier'] : [])]);
const reportB = args.other ?? writeFixture(args.fixture, path.join(out, 'b.h5'),
  // More call paths than A: the two call trees differ (each has paths the other lacks).
  // A scaling study: B has two ranks more (one host shared with A's ranks, ...), and each
  // run has a metric the other lacks (wait_at_barrier only in B, bytes_sent only in A).
  ['--callpaths', '90', '--locations', '16', '--seed', '3', '--scale', '1.5', '--without-metric', 'bytes_sent']);
const shot = (page, name) => page.screenshot({ path: path.join(out, `${name}.png`) });
const row = (panel, id) => `${panel} .row[data-id="${id}"]`;

async function expandAllProcesses(page) {
  for (const id of await page.$$eval('#process-tree .row[data-expanded="0"][data-leaf="0"]', (r) => r.map((x) => x.dataset.id))) {
    await act(page, () => page.click(`${row('#process-tree', id)} .toggle`));
  }
}

/** The page's call-tree rows against stat's inclusive/exclusive per call path. */
function checkCallTree(values, statAnswer, what, field = 'mine', pathOfRow = null) {
  // The other run's rows may differ: then call paths are matched by their path.
  const byRow = new Map(statAnswer.callpaths.map((c) => [String(c.row), c]));
  const byPath = new Map(statAnswer.callpaths.map((c) => [c.callpath, c]));
  let compared = 0;
  for (const [id, v] of Object.entries(values)) {
    if (v.label === 'All call paths') continue;  // the viewer's virtual root over several roots
    const expected = pathOfRow ? byPath.get(pathOfRow.get(id)) : byRow.get(id);
    check(expected !== undefined, `${what}: stat lists call path ${id}`);
    if (!expected) continue;
    near(v[field], v.expanded ? expected.exclusive : expected.inclusive,
      `${what}: call path ${id} (${v.label}, ${v.expanded ? 'exclusive' : 'inclusive'})`);
    compared += 1;
  }
  check(compared > 0, `${what}: some call paths compared`);
}

/** Per-process values of a selected (collapsed) call path against `stat -i`'s sum, min and max. */
function checkSpread(values, statInclusive, callpathRow, what, field = 'mine') {
  const expected = statInclusive.callpaths.find((c) => c.row === callpathRow);
  const perRank = Object.values(values).filter((v) => v.label.startsWith('rank ')).map((v) => v[field]);
  check(perRank.length === statInclusive.n_locations, `${what}: every process shown`);
  near(perRank.reduce((a, b) => a + b, 0), expected.inclusive, `${what}: processes add up`);
  near(Math.max(...perRank), expected.max, `${what}: max over processes as stat -i says`);
  near(Math.min(...perRank), expected.min, `${what}: min over processes as stat -i says`);
}

/** Per-process totals (a single call-tree root selected, collapsed) against stat's processes. */
function checkProcesses(values, statAnswer, what, field = 'mine') {
  let compared = 0;
  for (const p of statAnswer.processes) {
    const entry = Object.values(values).find((v) => v.label === `rank ${p.rank}`);
    check(entry !== undefined, `${what}: rank ${p.rank} shown`);
    if (!entry) continue;
    near(entry[field], p.value, `${what}: rank ${p.rank}`);
    compared += 1;
  }
  check(compared === statAnswer.n_locations, `${what}: every process compared`);
}

/** The report's header as the page's server gives it. */
async function header(url) {
  const token = new URL(url).searchParams.get('token');
  const response = await fetch(`${url.split('?')[0]}api/header`, { headers: { 'X-Orrery-Token': token } });
  return response.json();
}

/** Expands collapsed nodes (in order) so that `ids` become visible. */
async function expand(page, panel, ids) {
  for (const id of ids) {
    const selector = `${row(panel, id)}[data-expanded="0"][data-leaf="0"] .toggle`;
    if (await page.$(selector)) await act(page, () => page.click(selector));
  }
}

/**
 * Right after start the server may not know the values yet: with /api/metrics
 * answering "not yet" and the call-tree values held back, the page must
 * already show its trees, say "computing…" instead of any number and not be
 * ready; once the answers come, the numbers are stat's.
 */
async function coldStart(page, url, time) {
  const cold = await page.context().browser().newPage({ viewport: { width: 1440, height: 900 } });
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  let isReleased = false;
  await cold.route('**/api/metrics*', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    if (!isReleased) Object.assign(body, { values: body.values.map(() => null), complete: false });
    await route.fulfill({ response, json: body });
  });
  await cold.route('**/api/callpaths*', async (route) => { await released; await route.continue(); });
  await cold.goto(url);
  await cold.waitForSelector('#call-tree .row');
  for (const panel of ['#metric-tree', '#call-tree', '#process-tree']) {
    const values = Object.values(await treeValues(cold, panel));
    check(values.length > 0, `${panel} painted before the values are known`);
    for (const v of values) {
      check(v.text === 'computing…' && v.shown === null, `${panel} ${v.label}: "computing…", not "${v.text}"`);
    }
  }
  check(!(await cold.evaluate(() => document.body.dataset.ready)), 'not ready while values are computing');
  await shot(cold, '00-computing');
  isReleased = true;
  release();
  await cold.waitForSelector('body[data-ready]');
  near((await treeValues(cold, '#metric-tree'))[0].mine, time.total, 'Time filled in after computing');
  await cold.close();
}

async function single(page, url) {
  const h = await header(url);
  const metricRow = (name) => h.metrics.findIndex((m) => m.name === name);
  const ancestors = (parents, id) => {
    const chain = [];
    for (let p = parents[id]; p >= 0; p = parents[p]) chain.unshift(p);
    return chain;
  };
  const callAncestors = (id) => [...(virtualRoot === null ? [] : [virtualRoot]), ...ancestors(h.callpaths.parent, id)];
  const late = metricRow('late_sender');
  const visits = metricRow('visits');
  check(late >= 0 && visits >= 0, 'report has late_sender and visits');
  const time = stat(args.orrery, reportA, 'time');
  const virtualRoot = h.callpaths.parent.filter((p) => p < 0).length > 1 ? h.callpaths.parent.length : null;
  await coldStart(page, url, time);
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  await shot(page, '01-loaded');
  const metrics = await treeValues(page, '#metric-tree');
  near(metrics[0].mine, time.total, 'Time (collapsed) over the whole run');
  await expandAllProcesses(page);
  // The root (or the virtual root over several) is selected: whole-program values per process.
  checkProcesses(await treeValues(page, '#process-tree'), time, 'time per process');
  if (virtualRoot !== null) {
    near((await treeValues(page, '#call-tree'))[virtualRoot].mine, time.total, 'All call paths (collapsed)');
    await expand(page, '#call-tree', [virtualRoot]);
  }
  checkCallTree(await treeValues(page, '#call-tree'), time, 'time');

  // Expanding a metric shows its exclusive value.
  await act(page, () => page.click(`${row('#metric-tree', 0)} .toggle`));
  const timeAlone = stat(args.orrery, reportA, 'time', ['--exclusive-metric']);
  near((await treeValues(page, '#metric-tree'))[0].mine, timeAlone.total, 'Time (expanded) is exclusive');
  await expand(page, '#metric-tree', ancestors(h.metrics.map((m) => m.parent), late));
  await act(page, () => page.click(`${row('#metric-tree', late)} .label`));
  const lateStat = stat(args.orrery, reportA, 'late_sender', ['--inclusive']);
  // Open the call tree down to the call path with the most Late Sender.
  const hottest = [...lateStat.callpaths].sort((a, b) => b.exclusive - a.exclusive)[0];
  await expand(page, '#call-tree', callAncestors(hottest.row));
  const calls = await treeValues(page, '#call-tree');
  checkCallTree(calls, lateStat, 'late_sender');
  await shot(page, '02-expanded');

  // Select the hottest visible collapsed call path; its processes add up to it.
  const [hotId] = Object.entries(calls).filter(([, v]) => !v.expanded).sort((a, b) => b[1].mine - a[1].mine)[0];
  await act(page, () => page.click(`${row('#call-tree', hotId)} .label`));
  checkSpread(await treeValues(page, '#process-tree'), lateStat, Number(hotId), 'late_sender at the selected call path');
  const expected = lateStat.callpaths.find((c) => String(c.row) === hotId);

  // Modes.
  const timeTotal = time.total;
  const lateTotal = lateStat.total;
  await act(page, () => page.click('#modes button[data-mode="root"]'));
  near((await treeValues(page, '#call-tree'))[hotId].shown, (100 * expected.inclusive) / timeTotal,
    '% of root at the selected call path', 1e-6);
  near((await treeValues(page, '#metric-tree'))[late].shown, (100 * lateTotal) / timeTotal, '% of root at Late Sender', 1e-6);
  await shot(page, '03-percent-of-root');
  await act(page, () => page.click('#modes button[data-mode="sel"]'));
  const selected = (await treeValues(page, '#call-tree'))[hotId];
  near(selected.shown, (100 * expected.inclusive) / lateTotal, '% of selection at the selected call path', 1e-6);
  check(!(await page.$('#modes button[data-mode="diff"]')), 'no difference mode with one report');

  // Search and sort.
  const name = hottest.callpath.split('/').pop();
  await act(page, () => page.fill('#search', name));
  const matches = await page.$$eval('#call-tree .row.match .label', (r) => r.map((x) => x.textContent));
  const named = lateStat.callpaths.filter((c) => c.callpath.split('/').pop().includes(name));
  check(matches.length === named.length && matches.every((m) => m.includes(name)),
    `search shows every ${name} call path (${matches.length} of ${named.length})`);
  await shot(page, '04-search');
  await act(page, () => page.fill('#search', ''));
  await act(page, () => page.check('#sort'));
  const order = await page.$$eval('#call-tree .row[style*="--depth:1"]', (r) => r.map((x) => Number(x.querySelector('.value').dataset.value)));
  check(order.every((v, i) => i === 0 || order[i - 1] >= v), 'children sorted by value');

  // Metric help is one click away.
  await page.click(`${row('#metric-tree', late)} .info`);
  const help = await page.textContent('#metric-info');
  const { description, diagnosis } = h.metrics[late];
  check(help.includes(description) && help.includes(diagnosis || 'No diagnosis'), 'description and diagnosis shown');
  await shot(page, '05-metric-info');
  await page.click('#metric-info .close');

  // Charts.
  await act(page, () => page.click('#chart-tabs button[data-chart="heat"]'));
  check(await page.$('#chart canvas') !== null, 'heat map drawn');
  await shot(page, '06-heatmap');
  await act(page, () => page.click('#chart-tabs button[data-chart="radar"]'));
  await shot(page, '07-kiviat');

  // The address keeps the view: a fresh page shows the same selection.
  const shared = page.url();
  check(shared.includes('metric=late_sender') && shared.includes('mode=sel'), `state in the URL: ${shared}`);
  const context = await page.context().browser().newContext({ viewport: { width: 1440, height: 900 } });
  const again = await context.newPage();
  await again.goto(shared);
  await again.waitForSelector('body[data-ready]');
  const selectedAgain = await again.$$eval('.row.selected', (r) => r.map((x) => `${x.closest('.tree').id}:${x.dataset.id}`));
  check(selectedAgain.includes(`metric-tree:${late}`) && selectedAgain.includes(`call-tree:${hotId}`),
    `shared URL restores the selection (${selectedAgain})`);
  check(await again.getAttribute('#modes button[data-mode="sel"]', 'aria-pressed') === 'true', 'shared URL restores the mode');
  await context.close();

  // A report that cannot be read any more: the server's message is shown, readably.
  const message = 'a.h5: cannot read /values/visits: file truncated';
  await page.route('**/api/callpaths?*', (route) => route.fulfill({
    status: 500, contentType: 'application/json', body: JSON.stringify({ error: message }),
  }));
  await page.click(`${row('#metric-tree', visits)} .label`);
  await page.waitForSelector('#error:not([hidden])');
  check((await page.textContent('#error')) === message, 'server error shown in the page');
  await shot(page, '08-error');
}

async function expandAllCallpaths(page) {
  for (;;) {
    const id = await page.$eval('#call-tree', (t) => t.querySelector('.row[data-expanded="0"][data-leaf="0"]')?.dataset.id ?? null);
    if (id === null) return;
    await act(page, () => page.click(`${row('#call-tree', id)} .toggle`));
  }
}

/**
 * The fully expanded union call tree against both runs' `orrery stat`: each
 * row matched by its region-name path; a run without that path counts as 0.
 */
function checkUnionCallTree(values, union, statA, statB) {
  const { parent, region } = union.callpaths;
  const name = (c) => union.regions[region[c]].name;
  const pathOf = (c) => (parent[c] >= 0 ? `${pathOf(parent[c])}/${name(c)}` : name(c));
  const aPaths = new Set(statA.callpaths.map((c) => c.callpath));
  const bPaths = new Set(statB.callpaths.map((c) => c.callpath));
  const shownPaths = new Set();
  for (const [id, v] of Object.entries(values)) {
    if (v.label === 'All call paths') continue;
    shownPaths.add(pathOf(Number(id)));
  }
  const onlyA = [...aPaths].filter((p) => !bPaths.has(p));
  const onlyB = [...bPaths].filter((p) => !aPaths.has(p));
  // The fixtures are made to differ; reports given on the command line may not.
  if (!args.other) check(onlyA.length > 0 && onlyB.length > 0, `the two call trees differ (${onlyA.length} / ${onlyB.length} own paths)`);
  for (const p of [...aPaths, ...bPaths]) check(shownPaths.has(p), `union call tree shows ${p}`);
  for (const [stats, field, what] of [[statA, 'mine', 'this run'], [statB, 'theirs', 'other run']]) {
    const byPath = new Map(stats.callpaths.map((c) => [c.callpath, c]));
    for (const [id, v] of Object.entries(values)) {
      if (v.label === 'All call paths') continue;
      const expected = byPath.get(pathOf(Number(id)));
      const want = expected ? (v.expanded ? expected.exclusive : expected.inclusive) : 0;
      near(v[field], want, `${what}: ${pathOf(Number(id))} (${v.expanded ? 'exclusive' : 'inclusive'})`);
    }
  }
}

/** Process-tree rows of single processes (not host groups): {id: values}. */
async function processRows(page) {
  const values = await treeValues(page, '#process-tree');
  const leaves = await page.$$eval('#process-tree .row[data-leaf="1"]', (r) => r.map((x) => x.dataset.id));
  const otherOnly = new Set(await page.$$eval('#process-tree .row[data-other-only="1"]', (r) => r.map((x) => x.dataset.id)));
  return Object.fromEntries(leaves.map((id) => [id, { ...values[id], otherOnly: otherOnly.has(id) }]));
}

/** (this run − other run) over all processes of each, from the process tree's rows. */
function processSums(rows) {
  const list = Object.values(rows);
  return { mine: list.reduce((s, v) => s + v.mine, 0), theirs: list.reduce((s, v) => s + v.theirs, 0) };
}

/**
 * Runs of different sizes: processes only the other run has are shown and
 * marked, count 0 in this run, and every difference covers all processes of
 * each run; a metric only one run has is in the metric tree.
 */
async function differentRuns(page, h, a, b) {
  const aRanks = new Set(a.processes.map((p) => p.rank));
  const onlyB = b.processes.filter((p) => !aRanks.has(p.rank));
  if (!args.other) check(onlyB.length === 2, `the other run has 2 processes more (${onlyB.length})`);
  const rows = await processRows(page);
  const marked = Object.values(rows).filter((v) => v.otherOnly).map((v) => v.label).sort();
  check(JSON.stringify(marked) === JSON.stringify(onlyB.map((p) => `rank ${p.rank}`).sort()),
    `processes only in the other run are marked (${marked})`);
  for (const p of onlyB) {
    const entry = Object.entries(rows).find(([, v]) => v.label === `rank ${p.rank}`);
    check(entry !== undefined, `rank ${p.rank} (only in the other run) shown`);
    if (!entry) continue;
    const [id, v] = entry;
    check(v.mine === 0, `rank ${p.rank}: 0 in this run (${v.mine})`);
    near(v.theirs, p.value, `rank ${p.rank}: the other run's value`);
    const title = await page.getAttribute(row('#process-tree', id), 'title');
    check(title.includes('only in the other run'), `rank ${p.rank}: tooltip says "only in the other run" (${title})`);
  }
  if (onlyB.length > 0) {
    const bar = await page.textContent('#reports');
    check(bar.includes(`${onlyB.length} processes only in the other run`), `top bar counts the processes: ${bar}`);
  }
  // The whole program's difference: (sum over this run's processes) − (sum over all the other run's).
  const root = await treeValues(page, '#call-tree');
  const rootId = Object.keys(root)[0];
  const sums = processSums(rows);
  near(root[rootId].shown, a.total - b.total, 'whole-program difference = this run − other run (stat totals)');
  near(root[rootId].shown, sums.mine - sums.theirs, 'whole-program difference = sums over all processes of each run');
  if (args.other) return;

  // Metrics: wait_at_barrier only in the other run (under mpi, marked), bytes_sent only in this one.
  const metricRow = (name) => h.metrics.findIndex((m) => m.name === name);
  const waits = metricRow('wait_at_barrier');
  const bytes = metricRow('bytes_sent');
  check(waits >= 0 && h.metrics[waits].other_only === true, 'wait_at_barrier (only in the other run) in the metric tree');
  check(h.metrics[waits]?.parent === metricRow('mpi'), 'wait_at_barrier under mpi');
  if (waits < 0 || bytes < 0) return;
  const chain = [];  // its ancestors, outermost first, to open
  for (let m = h.metrics[waits].parent; m >= 0; m = h.metrics[m].parent) chain.unshift(m);
  for (const m of chain) await act(page, () => page.click(`${row('#metric-tree', m)} .toggle`));
  const metricValues = await treeValues(page, '#metric-tree');
  const waitsB = stat(args.orrery, reportB, 'wait_at_barrier');
  const bytesA = stat(args.orrery, reportA, 'bytes_sent');
  check(metricValues[waits]?.mine === 0, 'wait_at_barrier: 0 in this run');
  near(metricValues[waits]?.theirs, waitsB.total, 'wait_at_barrier: the other run\'s total');
  near(metricValues[waits]?.shown, -waitsB.total, 'wait_at_barrier: difference');
  check(await page.$(`${row('#metric-tree', waits)}[data-other-only="1"]`) !== null, 'wait_at_barrier marked');
  near(metricValues[bytes]?.mine, bytesA.total, 'bytes_sent: this run\'s total');
  check(metricValues[bytes]?.theirs === 0, 'bytes_sent: 0 in the other run');
  // Selecting the other run's own metric: its call tree and processes are the other run's.
  await act(page, () => page.click(`${row('#metric-tree', waits)} .label`));
  const waitCalls = await treeValues(page, '#call-tree');
  near(waitCalls[rootId].shown, -waitsB.total, 'wait_at_barrier selected: whole-program difference');
  const waitRows = await processRows(page);
  near(processSums(waitRows).theirs, waitsB.total, 'wait_at_barrier selected: the other run\'s processes add up');
  await shot(page, '01-other-only-metric');
  await act(page, () => page.click(`${row('#metric-tree', 0)} .label`));
  for (const m of chain.reverse()) await act(page, () => page.click(`${row('#metric-tree', m)} .toggle`));
}

/** A process only the other run has, selected, in every mode and chart. */
async function selectOtherOnlyProcess(page, b) {
  const rows = await processRows(page);
  const entry = Object.entries(rows).find(([, v]) => v.otherOnly);
  if (!entry) return;
  const [id, v] = entry;
  await act(page, () => page.click(`${row('#process-tree', id)} .label`));
  for (const mode of ['abs', 'root', 'sel', 'diff', 'other']) {
    await act(page, () => page.click(`#modes button[data-mode="${mode}"]`));
    check(await page.$(`${row('#process-tree', id)}.selected`) !== null, `${mode}: ${v.label} stays selected`);
    check(await page.isHidden('#error'), `${mode}: no error with ${v.label} selected`);
    const now = (await processRows(page))[id];
    check(now.mine === 0, `${mode}: ${v.label} is 0 in this run`);
    if (mode === 'diff') near(now.shown, -now.theirs, `${mode}: ${v.label} difference`);
    if (mode === 'abs') check(now.shown === 0, `${mode}: ${v.label} shows 0`);
  }
  check((await page.textContent('#selection')).endsWith(v.label), 'selection line names the process');
  const rank = Number(v.label.replace('rank ', ''));
  near(v.theirs, b.processes.find((p) => p.rank === rank).value, `${v.label}: the other run's value`);
  await act(page, () => page.click('#modes button[data-mode="diff"]'));
  for (const chart of ['heat', 'radar', 'bars']) {
    await act(page, () => page.click(`#chart-tabs button[data-chart="${chart}"]`));
    check(await page.isHidden('#error'), `${chart}: no error with ${v.label} selected`);
    if (chart === 'heat') await shot(page, '01-heatmap-difference');
  }
  await act(page, () => page.click(`${row('#process-tree', id)} .label`));  // deselect
}

async function diff(page, url) {
  const a = stat(args.orrery, reportA, 'time');
  const b = stat(args.orrery, reportB, 'time');
  const h = await header(url);
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  await act(page, () => page.click('#modes button[data-mode="diff"]'));
  await expandAllProcesses(page);
  const processes = await treeValues(page, '#process-tree');
  checkProcesses(processes, a, 'this run per process');
  checkProcesses(processes, b, 'other run per process', 'theirs');
  for (const v of Object.values(processes)) near(v.shown, v.mine - v.theirs, `difference at ${v.label}`);
  await differentRuns(page, h, a, b);
  await selectOtherOnlyProcess(page, b);
  await expandAllCallpaths(page);
  const calls = await treeValues(page, '#call-tree');
  checkUnionCallTree(calls, h, a, b);
  for (const v of Object.values(calls)) near(v.shown, v.mine - v.theirs, `difference at ${v.label}`);
  // A call path of both runs, selected: its difference is (this run − other run) over all processes of each.
  const both = Object.entries(calls).filter(([, v]) => v.mine !== 0 && v.theirs !== 0 && v.label !== 'All call paths')
    .sort((x, y) => Math.abs(y[1].shown) - Math.abs(x[1].shown))[0];
  check(both !== undefined, 'a call path both runs have');
  if (both) {
    await act(page, () => page.click(`${row('#call-tree', both[0])} .label`));
    const sums = processSums(await processRows(page));
    const shownNow = (await treeValues(page, '#call-tree'))[both[0]];
    near(shownNow.shown, sums.mine - sums.theirs, `difference at ${both[1].label} = sums over all processes of each run`);
    near(sums.theirs, both[1].theirs, `${both[1].label}: the other run's processes add up to its call-tree value`);
  }
  await shot(page, '01-difference');
  await act(page, () => page.click('#modes button[data-mode="other"]'));
  for (const v of Object.values(await treeValues(page, '#call-tree'))) {
    if (v.theirs !== 0) near(v.shown, (100 * v.mine) / v.theirs, `% of other run at ${v.label}`, 1e-6);
  }
  await shot(page, '02-percent-of-other');
  await act(page, () => page.click('#chart-tabs button[data-chart="radar"]'));
  await shot(page, '03-kiviat-two-runs');
}

const viewer = await startViewer(args.orrery, args.scenario === 'diff' ? [reportA, reportB] : [reportA]);
const browser = await launchBrowser(args['node-modules']);
try {
  const page = await openPage(browser);
  await (args.scenario === 'diff' ? diff : single)(page, viewer.url);
} catch (error) {
  check(false, `${error.stack ?? error}`);
} finally {
  await browser.close();
  viewer.stop();
}
finish(args.scenario, out);
