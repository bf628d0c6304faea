// The Groups view in a real browser (Debian chromium via playwright-core):
// `orrery view --baseline A1 A2 --candidate B1 B2` on reports produced by the
// pipeline (the stencil with a slow rank, twice, against the stencil without).
// node groups_browser_test.mjs --orrery BIN --baseline A1,A2 --candidate B1,B2 --node-modules DIR --out DIR [--docs DIR]
// The page's numbers are checked against `orrery compare --baseline/--candidate
// --format json` (the statistics) and `orrery stat` (the group means in the trees).

import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  act, artifactsDir, check, failed, launchBrowser, near, parseArgs, startViewer, stat, treeValues,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, 'groups'));
const baseline = args.baseline.split(',');
const candidate = args.candidate.split(',');
// A loose level, so that runs on a loaded machine give both verdicts to check.
const alpha = '0.5';
const groupArgs = ['--baseline', ...baseline, '--candidate', ...candidate, '--alpha', alpha];

const oracle = JSON.parse(execFileSync(args.orrery, ['compare', ...groupArgs, '--format', 'json', '--top', '0'],
  { encoding: 'utf8' }));
const key = (metric, callpath) => `${metric}|${callpath}`;
const expected = new Map(oracle.map((r) => [key(r.metric, r.callpath), r]));

/** The rows of the Groups table as the page shows them. */
function pageRows(page) {
  return page.$$eval('tr.group-row', (rows) => rows.map((r) => ({
    metric: r.cells[0].textContent,
    callpath: r.cells[1].textContent,
    metricRow: Number(r.dataset.metric),
    callpathRow: Number(r.dataset.callpath),
    significant: r.dataset.significant === 'true',
    greyed: r.classList.contains('not-significant'),
    p: Number(r.dataset.p),
    baseline: Number(r.dataset.baseline),
    candidate: Number(r.dataset.candidate),
    bars: [...r.querySelectorAll('svg g')].map((g) => [Number(g.dataset.mean), Number(g.dataset.low), Number(g.dataset.high)]),
  })));
}

function checkRows(rows, what) {
  check(rows.length > 0, `${what}: rows shown`);
  for (const row of rows) {
    const want = expected.get(key(row.metric, row.callpath));
    check(want !== undefined, `${what}: ${row.metric} at ${row.callpath} is a row of orrery compare`);
    if (!want) continue;
    near(row.baseline, want.baseline_mean, `${what}: ${row.metric} ${row.callpath} baseline mean`);
    near(row.candidate, want.candidate_mean, `${what}: ${row.metric} ${row.callpath} candidate mean`);
    near(row.p, want.p_value, `${what}: ${row.metric} ${row.callpath} p-value`);
    check(row.significant === want.significant, `${what}: ${row.metric} ${row.callpath} verdict`);
    check(row.greyed === !want.significant, `${what}: ${row.metric} ${row.callpath} greyed iff not significant`);
    // The error bars are the confidence intervals.
    near(row.bars[0][1], want.baseline_ci[0], `${what}: baseline interval low`);
    near(row.bars[0][2], want.baseline_ci[1], `${what}: baseline interval high`);
    near(row.bars[1][1], want.candidate_ci[0], `${what}: candidate interval low`);
    near(row.bars[1][2], want.candidate_ci[1], `${what}: candidate interval high`);
  }
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

async function main() {
  const viewer = await startViewer(args.orrery, groupArgs);
  const browser = await launchBrowser(args['node-modules']);
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(viewer.url);
    await page.waitForSelector('#page[data-groups]', { timeout: 30000 });
    await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 30000 });
    check(await page.evaluate(() => document.body.dataset.chart) === 'groups', 'groups open on the Groups view');

    // The selected metric (time) under the root: exactly orrery compare's rows of time, in its order.
    const selection = await pageRows(page);
    checkRows(selection, 'time under the root');
    await page.screenshot({ path: path.join(out, 'groups.png') });
    if (args.docs) await page.screenshot({ path: path.join(args.docs, 'viewer-groups.png') });
    const ofTime = oracle.filter((r) => r.metric === 'time').slice(0, 100);
    check(selection.length === ofTime.length
      && selection.every((r, i) => r.callpath === ofTime[i].callpath), 'time rows in orrery compare\'s order');

    // Every metric: the first 100 of orrery compare's rows, in its order.
    await page.selectOption('#groups-scope', 'all');
    await page.waitForFunction((n) => document.querySelectorAll('tr.group-row').length === n,
      Math.min(100, oracle.length), { timeout: 20000 });
    const every = await pageRows(page);
    checkRows(every, 'every metric');
    check(every.every((r, i) => r.metric === oracle[i].metric && r.callpath === oracle[i].callpath),
      'every metric: orrery compare\'s order');
    const greyed = every.filter((r) => r.greyed).length;
    console.log(`groups: ${every.length} rows, ${every.length - greyed} significant, ${greyed} greyed`);

    // The runs: all four, with their command lines and recorded parameters.
    const runs = await page.$$eval('tr.run-row', (rows) => rows.map((r) => ({
      group: r.dataset.group, path: r.dataset.path, command: r.querySelector('.run-command')?.textContent ?? '',
      params: r.querySelector('.run-params')?.textContent ?? '',
    })));
    check(runs.length === baseline.length + candidate.length, `every run listed (${runs.length})`);
    for (const run of runs) check(/stencil2d/.test(run.command), `run ${run.path}: its command (${run.command})`);
    const repeat = runs.find((r) => r.path === baseline[1]);
    check(repeat && /delay_us=1000/.test(repeat.params), `run ${baseline[1]}: its --param (${repeat?.params})`);

    // The trees show each group's mean: the root metric's total is the runs' mean of orrery stat's totals.
    const metrics = await treeValues(page, '#metric-tree');
    const timeRow = Object.values(metrics).find((m) => /^Time$/i.test(m.label));
    near(timeRow.mine, mean(baseline.map((r) => stat(args.orrery, r, 'time').total)), 'metric tree: baseline mean time', 1e-6);
    near(timeRow.theirs, mean(candidate.map((r) => stat(args.orrery, r, 'time').total)), 'metric tree: candidate mean time', 1e-6);

    await page.screenshot({ path: path.join(out, 'groups-all.png') });

    // A row is a link: it selects its metric and call path in the trees.
    const target = every.find((r) => r.metricRow !== 0) ?? every[0];
    await act(page, () => page.click(`tr.group-row[data-metric="${target.metricRow}"][data-callpath="${target.callpathRow}"]`));
    const selected = await page.evaluate(() => ({
      metric: document.querySelector('#metric-tree .row.selected')?.dataset.id,
      callpath: document.querySelector('#call-tree .row.selected')?.dataset.id,
    }));
    check(selected.metric === String(target.metricRow) && selected.callpath === String(target.callpathRow),
      `a row selects its metric and call path: ${JSON.stringify(selected)} vs ${target.metricRow}/${target.callpathRow}`);
  } finally {
    await browser.close();
    viewer.stop();
  }
  if (failed()) {
    console.error(`${failed()} checks failed`);
    process.exit(1);
  }
  console.log('ok');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
