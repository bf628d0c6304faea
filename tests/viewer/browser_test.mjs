// The viewer in a real browser (Debian chromium via playwright-core).
// node browser_test.mjs --scenario single|diff --orrery BIN --fixture BIN
//   --node-modules DIR --out DIR [--report A.h5 --other B.h5]
// Every value checked on the page is compared with `orrery stat --format json`.
// Screenshots go to --out.

import path from 'node:path';
import {
  act, artifactsDir, check, failed, launchBrowser, near, parseArgs, startViewer, stat, treeValues, writeFixture,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, args.scenario));
const reportA = args.report ?? writeFixture(args.fixture, path.join(out, 'a.h5'),
  ['--callpaths', '80', '--locations', '16', '--seed', '3']);
const reportB = args.other ?? writeFixture(args.fixture, path.join(out, 'b.h5'),
  ['--callpaths', '80', '--locations', '16', '--seed', '3', '--scale', '1.5']);
const shot = (page, name) => page.screenshot({ path: path.join(out, `${name}.png`) });
const row = (panel, id) => `${panel} .row[data-id="${id}"]`;

async function expandAllProcesses(page) {
  for (const id of await page.$$eval('#process-tree .row[data-expanded="0"][data-leaf="0"]', (r) => r.map((x) => x.dataset.id))) {
    await act(page, () => page.click(`${row('#process-tree', id)} .toggle`));
  }
}

/** The page's call-tree rows against stat's inclusive/exclusive per call path. */
function checkCallTree(values, statAnswer, what, field = 'mine') {
  const byRow = new Map(statAnswer.callpaths.map((c) => [String(c.row), c]));
  let compared = 0;
  for (const [id, v] of Object.entries(values)) {
    const expected = byRow.get(id);
    check(expected !== undefined, `${what}: stat lists call path ${id}`);
    if (!expected) continue;
    near(v[field], v.expanded ? expected.exclusive : expected.inclusive,
      `${what}: call path ${id} (${v.label}, ${v.expanded ? 'exclusive' : 'inclusive'})`);
    compared += 1;
  }
  check(compared > 0, `${what}: some call paths compared`);
}

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

async function single(page, url) {
  const time = stat(args.orrery, reportA, 'time');
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  await shot(page, '01-loaded');
  const metrics = await treeValues(page, '#metric-tree');
  near(metrics[0].mine, time.callpaths.find((c) => c.row === 0).inclusive, 'Time (collapsed) over the whole run');
  checkCallTree(await treeValues(page, '#call-tree'), time, 'time');
  await expandAllProcesses(page);
  checkProcesses(await treeValues(page, '#process-tree'), time, 'time per process');

  // Expanding a metric shows its exclusive value.
  await act(page, () => page.click(`${row('#metric-tree', 0)} .toggle`));
  const timeAlone = stat(args.orrery, reportA, 'time', ['--exclusive-metric']);
  near((await treeValues(page, '#metric-tree'))[0].mine, timeAlone.callpaths.find((c) => c.row === 0).inclusive,
    'Time (expanded) is exclusive');
  for (const id of [1, 2]) await act(page, () => page.click(`${row('#metric-tree', id)} .toggle`));
  await act(page, () => page.click(row('#metric-tree', 3)));  // late_sender
  const late = stat(args.orrery, reportA, 'late_sender', ['--inclusive']);
  for (const id of [0, 2]) await act(page, () => page.click(`${row('#call-tree', id)} .toggle`));
  const calls = await treeValues(page, '#call-tree');
  checkCallTree(calls, late, 'late_sender');
  await shot(page, '02-expanded');

  // Select the hottest visible collapsed call path; its processes add up to it.
  const [hotId] = Object.entries(calls).filter(([, v]) => !v.expanded).sort((a, b) => b[1].mine - a[1].mine)[0];
  await act(page, () => page.click(`${row('#call-tree', hotId)} .label`));
  const perProcess = Object.values(await treeValues(page, '#process-tree')).filter((v) => v.label.startsWith('rank '));
  const expected = late.callpaths.find((c) => String(c.row) === hotId);
  const mine = perProcess.map((v) => v.mine);
  near(mine.reduce((a, b) => a + b, 0), expected.inclusive, 'processes of the selected call path add up');
  near(Math.max(...mine), expected.max, 'max over processes as stat -i says');
  near(Math.min(...mine), expected.min, 'min over processes as stat -i says');

  // Modes.
  const timeTotal = time.callpaths.find((c) => c.row === 0).inclusive;
  const lateTotal = late.callpaths.find((c) => c.row === 0).inclusive;
  await act(page, () => page.click('#modes button[data-mode="root"]'));
  near((await treeValues(page, '#call-tree'))[hotId].shown, (100 * expected.inclusive) / timeTotal,
    '% of root at the selected call path', 1e-6);
  near((await treeValues(page, '#metric-tree'))[3].shown, (100 * lateTotal) / timeTotal, '% of root at Late Sender', 1e-6);
  await shot(page, '03-percent-of-root');
  await act(page, () => page.click('#modes button[data-mode="sel"]'));
  const selected = (await treeValues(page, '#call-tree'))[hotId];
  near(selected.shown, (100 * expected.inclusive) / lateTotal, '% of selection at the selected call path', 1e-6);
  check(!(await page.$('#modes button[data-mode="diff"]')), 'no difference mode with one report');

  // Search and sort.
  await act(page, () => page.fill('#search', 'MPI_Recv'));
  const matches = await page.$$eval('#call-tree .row.match .label', (r) => r.map((x) => x.textContent));
  const recvPaths = late.callpaths.filter((c) => c.callpath.endsWith('/MPI_Recv'));
  check(matches.length === recvPaths.length && matches.every((m) => m === 'MPI_Recv'),
    `search shows every MPI_Recv call path (${matches.length} of ${recvPaths.length})`);
  await shot(page, '04-search');
  await act(page, () => page.fill('#search', ''));
  await act(page, () => page.check('#sort'));
  const order = await page.$$eval('#call-tree .row[style*="--depth:2"]', (r) => r.map((x) => Number(x.querySelector('.value').dataset.value)));
  check(order.every((v, i) => i === 0 || order[i - 1] >= v), 'children sorted by value');

  // Metric help is one click away.
  await page.click(`${row('#metric-tree', 3)} .info`);
  const help = await page.textContent('#metric-info');
  check(help.includes('Receiver blocked') && help.includes('Balance the work'), 'description and diagnosis shown');
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
  check(selectedAgain.includes('metric-tree:3') && selectedAgain.includes(`call-tree:${hotId}`),
    `shared URL restores the selection (${selectedAgain})`);
  check(await again.getAttribute('#modes button[data-mode="sel"]', 'aria-pressed') === 'true', 'shared URL restores the mode');
  await context.close();

  // A report that cannot be read any more: the server's message is shown, readably.
  const message = 'a.h5: cannot read /values/visits: file truncated';
  await page.route('**/api/callpaths?*', (route) => route.fulfill({
    status: 500, contentType: 'application/json', body: JSON.stringify({ error: message }),
  }));
  await page.click(`${row('#metric-tree', 6)} .label`);
  await page.waitForSelector('#error:not([hidden])');
  check((await page.textContent('#error')) === message, 'server error shown in the page');
  await shot(page, '08-error');
}

async function diff(page, url) {
  const a = stat(args.orrery, reportA, 'time');
  const b = stat(args.orrery, reportB, 'time');
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  await act(page, () => page.click('#modes button[data-mode="diff"]'));
  await expandAllProcesses(page);
  const processes = await treeValues(page, '#process-tree');
  checkProcesses(processes, a, 'this run per process');
  checkProcesses(processes, b, 'other run per process', 'theirs');
  for (const v of Object.values(processes)) near(v.shown, v.mine - v.theirs, `difference at ${v.label}`);
  await act(page, () => page.click(`${row('#call-tree', 0)} .toggle`));
  await act(page, () => page.click(`${row('#call-tree', 2)} .toggle`));
  const calls = await treeValues(page, '#call-tree');
  checkCallTree(calls, a, 'this run');
  checkCallTree(calls, b, 'other run', 'theirs');
  for (const v of Object.values(calls)) near(v.shown, v.mine - v.theirs, `difference at ${v.label}`);
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
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => check(false, `page error: ${e.message}`));
  await (args.scenario === 'diff' ? diff : single)(page, viewer.url);
} catch (error) {
  check(false, `${error.stack ?? error}`);
} finally {
  await browser.close();
  viewer.stop();
}
console.log(`${args.scenario}: ${failed() === 0 ? 'ok' : `${failed()} failures`}; screenshots in ${out}`);
process.exit(failed() === 0 ? 0 : 1);
