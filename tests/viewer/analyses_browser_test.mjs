// The report's own analyses in a real browser (Debian chromium via
// playwright-core), on the pipeline's reports: the POP efficiencies and a
// what-if report's prediction on the findings page, the Function groups view (and its 3-D bars)
// and the critical path outlined in the timeline. Every number on the page is
// checked against the terminal tools (`orrery info`, `orrery imbalance`) or the
// report's own per-process values.
// node analyses_browser_test.mjs --orrery BIN --report SLOW.h5 --what-if WHATIF.h5 --node-modules DIR --out DIR

import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  act, artifactsDir, check, failed, launchBrowser, near, parseArgs, startViewer, finish, openPage, apiGet,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, 'analyses'));
const whatIf = args['what-if'];

async function shot(page, name) {
  await page.screenshot({ path: path.join(out, `${name}.png`) });
}

async function view(page, chart) {
  await act(page, () => page.click(`#chart-tabs button[data-chart="${chart}"]`));
}

/** `orrery info REPORT --format json`, parsed: the report's efficiencies and what-if attributes. */
function reportInfo(report) {
  return JSON.parse(execFileSync(args.orrery, ['info', report, '--format', 'json'], { encoding: 'utf8' }));
}

/** The findings page's efficiency bars are the report's `/efficiency`, each with its description. */
async function efficiencies(page, url) {
  await page.goto(url);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  const expected = reportInfo(args.report).efficiency ?? {};
  check(Object.keys(expected).length >= 3, `the report has efficiencies: ${JSON.stringify(expected)}`);
  const gauges = await page.$$eval('.efficiency-row[data-run="0"] .gauge', (list) => list.map((e) => ({
    name: e.dataset.efficiency, value: Number(e.dataset.value), text: e.querySelector('.gauge-value').textContent, title: e.title,
  })));
  check(gauges.length === Object.keys(expected).length, `one bar per efficiency: ${gauges.length}`);
  for (const g of gauges) {
    near(g.value, expected[g.name], `efficiency ${g.name} is the report's`, 1e-12);
    check(g.text === `${(100 * expected[g.name]).toFixed(1)} %`, `efficiency ${g.name} reads ${g.text}`);
    check(g.title.length > 10, `efficiency ${g.name} explains itself on hover: ${g.title}`);
  }
  check(await page.$('.prediction') === null, 'an ordinary report predicts nothing');
  await shot(page, 'efficiencies');
}

/** The function groups view: the table is `orrery imbalance`'s, the bars the selected group's time per process. */
async function functionGroups(page, url) {
  await page.goto(url);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  await page.waitForSelector('#chart-tabs button[data-chart="fgroups"]:not([hidden])', { timeout: 10000 });
  await view(page, 'fgroups');
  await page.waitForSelector('#page[data-fgroups]', { timeout: 20000 });
  const expected = JSON.parse(execFileSync(args.orrery, ['imbalance', args.report, '--format', 'json'], { encoding: 'utf8' })).groups;
  const rows = await page.$$eval('tr.fgroup', (list) => list.map((r) => ({
    row: Number(r.dataset.row), name: r.dataset.name, total: Number(r.dataset.total),
    imbalance: Number(r.dataset.imbalance), similarity: Number(r.dataset.similarity),
  })));
  check(rows.length === expected.length && expected.length > 0, `one row per function group: ${rows.length} of ${expected.length}`);
  rows.forEach((r, i) => {
    const e = expected[i] ?? {};
    check(r.name === e.name, `group ${i}: ${r.name} is ${e.name}`);
    near(r.total, e.total, `group ${r.name}: total`, 1e-12);
    near(r.imbalance, e.imbalance, `group ${r.name}: imbalance`, 1e-12);
    near(r.similarity, e.similarity, `group ${r.name}: similarity`, 1e-12);
  });
  // Select the last group: the bars are its time per process (sum = total, largest = max).
  const last = rows.length - 1;
  await page.click(`tr.fgroup[data-row="${last}"] td.num`);
  await page.waitForFunction((g) => window.__orreryFunctionGroups?.selected === g, last, { timeout: 10000 });
  const bars = await page.evaluate(() => window.__orreryFunctionGroups.values);
  check(bars.length === 4, `a bar per process: ${bars.length}`);
  near(bars.reduce((a, b) => a + b, 0), expected[last].total, `the bars of ${expected[last].name} sum to its total`, 1e-9);
  near(Math.max(...bars), expected[last].max, `the highest bar of ${expected[last].name} is its max`, 1e-12);
  check(await page.$eval('tr.fgroup.selected', (r) => r.dataset.row) === String(last), 'the selected group is marked');
  // Folding a top group hides its second-level groups.
  const top = expected.findIndex((g, i) => g.parent < 0 && expected.some((c) => c.parent === i));
  const before = await page.$$eval('tr.fgroup', (l) => l.length);
  await page.click(`tr.fgroup[data-row="${top}"] button.toggle`);
  await page.waitForFunction((n) => document.querySelectorAll('tr.fgroup').length < n, before, { timeout: 10000 });
  await shot(page, 'function-groups');
}

/**
 * The 3-D toggle of the Function groups tab: a bar per drawn group and process whose
 * heights are `orrery imbalance`'s per group (sum = total, highest = max, mean = mean),
 * each the group's time on that process; the group least similar to its parent is red.
 */
async function imbalance3d(page, url) {
  await page.goto(`${url}#chart=fgroups`);
  await page.waitForSelector('#page[data-fgroups]', { timeout: 20000 });
  const expected = JSON.parse(execFileSync(args.orrery, ['imbalance', args.report, '--format', 'json'], { encoding: 'utf8' })).groups;
  await page.click('button.fgroups-3d');
  await page.waitForSelector('.fgroups-chart[data-imbalance3d]', { timeout: 30000 });
  check(await page.$eval('.fgroups-chart', (e) => e.dataset.imbalance3d) !== 'no-webgl', 'the browser drew the 3-D bars (WebGL)');
  const shown = await page.evaluate(() => window.__orreryImbalance3d);
  // The drawn rows: every second-level group under its top group, a childless top group itself.
  const rows = [];
  expected.forEach((g, i) => {
    if (g.parent >= 0) return;
    const children = expected.map((c, k) => (c.parent === i ? k : -1)).filter((k) => k >= 0);
    rows.push(...(children.length ? children : [i]));
  });
  check(JSON.stringify(shown.rows) === JSON.stringify(rows), `the rows are the second-level groups: ${shown.rows} vs ${rows}`);
  check(shown.processes.length === 4, `a column per process: ${shown.processes.length}`);
  rows.forEach((g, r) => {
    const bars = shown.data.filter((d) => d[1] === r);
    const heights = bars.map((d) => d[2]);
    check(bars.length === shown.processes.length, `${expected[g].name}: a bar per process (${bars.length})`);
    check(new Set(bars.map((d) => d[0])).size === bars.length, `${expected[g].name}: one bar per process`);
    near(heights.reduce((a, b) => a + b, 0), expected[g].total, `${expected[g].name}: the bars sum to its total`, 1e-9);
    near(Math.max(...heights), expected[g].max, `${expected[g].name}: the highest bar is its max`, 1e-12);
    near(heights.reduce((a, b) => a + b, 0) / heights.length, expected[g].mean, `${expected[g].name}: the mean bar is its mean`, 1e-9);
  });
  // Per process, each bar is the group's time there (the 2-D bars of the same group).
  const g0 = rows[rows.length - 1];
  const perProcess = (await apiGet(url, 'function_groups', { group: g0 })).values;
  shown.data.filter((d) => d[1] === rows.length - 1).forEach((d) => near(d[2], perProcess[d[0]], `${expected[g0].name} on process ${d[0]}`, 1e-12));
  const lowest = rows.reduce((best, g) => (expected[g].similarity < expected[best].similarity ? g : best), rows[0]);
  check(shown.highlighted === lowest, `the highlighted group is the least similar to its parent: ${shown.highlighted} vs ${lowest} (${expected[lowest].name})`);
  check(await page.$eval('.fgroups-chart', (e) => e.dataset.highlighted) === String(lowest), 'the chart names the highlighted group');
  const title = shown.title;
  check(title.includes(expected[lowest].name), `the title names it: ${title}`);
  await page.waitForTimeout(500);
  await shot(page, 'imbalance-3d');
  // Time windows from the trace: window 3's bars are the trace's time of each group there,
  // and over the windows each group's time per process adds up to the report's.
  const windows = await apiGet(url, 'function_group_windows', { run: 0, windows: 8 });
  check(windows.windows.length === 8 && windows.values.length === 8, `eight windows of the run: ${windows.windows.length}`);
  await page.click('button.fgroups-window[data-window="2"]');
  await page.waitForSelector('.fgroups-chart[data-window="2"][data-imbalance3d]', { timeout: 30000 });
  const third = await page.evaluate(() => window.__orreryImbalance3d);
  const differ = third.data.filter(([p, r, v]) => windows.values[2][third.rows[r]][p] !== v);
  check(third.data.length > 0 && differ.length === 0, `window 3's bars are the trace's (${third.data.length} bars, ${differ.length} differ)`);
  check(/window 3\/8/.test(third.title), `the title names the window: ${third.title}`);
  for (const g of rows) {
    const reportValues = (await apiGet(url, 'function_groups', { group: g })).values;
    reportValues.forEach((v, p) => {
      const fromTrace = windows.values.reduce((a, w) => a + w[g][p], 0);
      check(Math.abs(fromTrace - v) <= 0.02 * v + 2e-3,
        `${expected[g].name} on process ${p}: over the windows ${fromTrace} s, the report's ${v} s`);
    });
  }
  await shot(page, 'imbalance-3d-window');
  await page.click('button.fgroups-window[data-window=""]');
  await page.waitForSelector('.fgroups-chart[data-window="all"][data-imbalance3d]', { timeout: 30000 });
  // Off again: the 2-D bars come back.
  await page.click('button.fgroups-3d');
  await page.waitForFunction(() => !document.querySelector('.fgroups-chart')?.dataset.imbalance3d, null, { timeout: 10000 });
}

/** A what-if report names its model and predicted run time on the findings page. */
async function prediction(page, url) {
  await page.goto(url);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  const expected = reportInfo(whatIf);
  const shown = await page.$eval('.prediction', (e) => ({ model: e.dataset.model, predicted: Number(e.dataset.predicted), text: e.textContent }));
  check(shown.model === expected.what_if && expected.what_if === 'ideal', `the model: ${shown.model}`);
  near(shown.predicted, expected.predicted_runtime, 'the predicted run time is the report\'s', 1e-12);
  check(/Predicted run on ideal: [\d.]+ (s|ms)/.test(shown.text), `the prediction reads: ${shown.text}`);
  const transfer = await page.$eval('.gauge[data-efficiency="transfer_efficiency"]', (e) => Number(e.dataset.value));
  near(transfer, expected.efficiency.transfer_efficiency, 'the what-if run\'s transfer efficiency', 1e-12);
  await shot(page, 'what-if');
}

/**
 * The timeline outlines the calls of the call paths (below the roots) on the
 * critical path: on every rank with critical-path time there, and at least that
 * much time (whole calls are outlined; the report counts the part of them on the path).
 */
async function criticalOverlay(page, url) {
  await page.goto(`${url}#chart=timeline&crit=1`);
  await page.waitForFunction(() => window.__orreryTimeline?.answer?.critical_path !== undefined
    && !document.querySelector('#timeline').dataset.busy, null, { timeout: 30000 });
  check(await page.$eval('#critical-path', (e) => e.checked), 'the Critical path box is ticked from the link');
  const answer = await page.evaluate(() => window.__orreryTimeline.answer);
  check(answer.critical_path === true, 'the report has a critical path');
  const h = await apiGet(url, 'header');
  const metric = h.metrics.findIndex((m) => m.name === 'critical_path');
  // Roots (the whole program) are not outlined: their own time is left out.
  const perLocation = (await apiGet(url, 'locations', { metric, metric_incl: 1, callpath: 'all' })).values;
  for (const [c, parent] of h.callpaths.parent.entries()) {
    if (parent >= 0) continue;
    const own = (await apiGet(url, 'locations', { metric, metric_incl: 1, callpath: c, callpath_incl: 0 })).values;
    own.forEach((v, l) => { perLocation[l] -= v; });
  }
  for (const row of answer.rows) {
    const expected = perLocation[h.locations.findIndex((l) => l.rank === row.rank && l.thread === 0)];
    const outlined = (row.critical ?? []).reduce((a, [, , t]) => a + t, 0);
    if (expected > 0) {
      check(outlined >= expected * (1 - 1e-6) - 1e-6, `rank ${row.rank}: outlined ${outlined} s >= its critical-path time ${expected} s`);
    } else {
      check(outlined === 0, `rank ${row.rank}: nothing outlined without critical-path time (${outlined} s)`);
    }
  }
  check(await page.$eval('.timeline-legend [data-kind="critical"]', (e) => /critical path/.test(e.textContent)), 'the legend names the outline');
  await shot(page, 'critical-path');
  // Unticked: no outlines asked for.
  await page.click('#critical-path');
  await page.waitForFunction(() => window.__orreryTimeline.answer?.critical_path === undefined
    && !document.querySelector('#timeline').dataset.busy, null, { timeout: 30000 });
  check(!/crit=1/.test(await page.evaluate(() => window.location.hash)), 'the link forgets the outline');
}

/** A report without the analyses (an older producer's): no bars, no tab. */
async function without(page, url) {
  await page.goto(url);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  check(await page.$('.efficiency') === null, 'no efficiency section without /efficiency');
  await page.goto(`${url}#chart=fgroups`);
  await page.waitForSelector('#page[data-fgroups="none"]', { timeout: 20000 });
  const note = await page.$eval('#page .note', (e) => e.textContent);
  check(/No function groups/.test(note), `the view says why it is empty: ${note}`);
  check(await page.$eval('#chart-tabs button[data-chart="fgroups"]', (b) => b.hidden), 'the tab is hidden');
}

/** Comparing two runs: the switch shows the other run's groups (its own `orrery imbalance`), in the table, the bars and 3-D. */
async function secondRunGroups(page, url) {
  await page.goto(`${url}#chart=fgroups`);
  await page.waitForSelector('#page[data-fgroups]', { timeout: 20000 });
  const buttons = await page.$$eval('button.fgroups-run', (list) => list.map((b) => b.textContent));
  check(buttons.length === 2, `comparing, a switch names both runs: ${buttons}`);
  check(await page.$eval('#page', (e) => e.dataset.fgroupsRun) === '0', 'the first run\'s groups first');
  await page.click('button.fgroups-run[data-run="1"]');
  await page.waitForSelector('#page[data-fgroups-run="1"]', { timeout: 20000 });
  const expected = JSON.parse(execFileSync(args.orrery, ['imbalance', args.other, '--format', 'json'], { encoding: 'utf8' })).groups;
  const rows = await page.$$eval('tr.fgroup', (list) => list.map((r) => ({
    name: r.dataset.name, total: Number(r.dataset.total), similarity: Number(r.dataset.similarity),
  })));
  check(rows.length === expected.length && expected.length > 0, `the other run's groups: ${rows.length} of ${expected.length}`);
  rows.forEach((r, i) => {
    check(r.name === expected[i]?.name, `other run's group ${i}: ${r.name} is ${expected[i]?.name}`);
    near(r.total, expected[i]?.total, `other run's group ${r.name}: total`, 1e-12);
    near(r.similarity, expected[i]?.similarity, `other run's group ${r.name}: similarity`, 1e-12);
  });
  const shown = await page.evaluate(() => window.__orreryFunctionGroups);
  const answer = await apiGet(url, 'function_groups', { run: 1, group: shown.selected });
  check(shown.run === 1 && JSON.stringify(shown.values) === JSON.stringify(answer.values),
    'the bars are the other run\'s values of the selected group');
  check(JSON.stringify(shown.names) === JSON.stringify(answer.location_names), `processes named by the other report: ${shown.names}`);
  const totalFromBars = shown.values.reduce((a, v) => a + (v ?? 0), 0);
  near(totalFromBars, rows[shown.selected].total, 'the bars add up to the group\'s total', 1e-9);
  await page.click('button.fgroups-3d');
  await page.waitForSelector('.fgroups-chart[data-imbalance3d]', { timeout: 30000 });
  const drawn = await page.evaluate(() => window.__orreryImbalance3d);
  const values = await Promise.all(expected.map((_, g) => apiGet(url, 'function_groups', { run: 1, group: g })));
  const wrong = drawn.data.filter(([p, r, v]) => values[drawn.rows[r]].values[p] !== v);
  check(drawn.data.length > 0 && wrong.length === 0, `the 3-D bars are the other run's (${drawn.data.length} bars, ${wrong.length} differ)`);
  await shot(page, 'function-groups-other-run');
  await page.click('button.fgroups-3d');
}

// The report without its optional tables, as older analyzers wrote it.
const plain = path.join(out, 'plain.h5');
execFileSync('/usr/bin/python3', ['-c', 'import h5py, shutil, sys; shutil.copy(sys.argv[1], sys.argv[2]); f = h5py.File(sys.argv[2], "r+");'
  + ' [f.__delitem__(k) for k in ("efficiency", "groups", "group_values") if k in f]; f.close()', args.report, plain]);

const browser = await launchBrowser(args['node-modules']);
const scenarios = [
  [[args.report], [efficiencies, functionGroups, imbalance3d, criticalOverlay]],
  [[whatIf], [prediction]],
  [[args.report, args.other], [secondRunGroups]],
  [[plain, '--no-trace'], [without]],
];
try {
  for (const [options, steps] of scenarios) {
    const viewer = await startViewer(args.orrery, options);
    try {
      const page = await openPage(browser);
      for (const step of steps) {
        try {
          await step(page, viewer.url);
        } catch (error) {
          check(false, `${step.name}: ${error.stack ?? error}`);
        }
      }
      await page.close();
    } finally {
      viewer.stop();
    }
  }
} catch (error) {
  check(false, `${error.stack ?? error}`);
} finally {
  await browser.close();
}
finish('analyses', out);
