// The viewer on a big cube: 10,000 call paths x 1,000 processes (8 metrics).
// Prints: time to serve, first paint in chromium (cold and warm), and the
// server's answer times for select-metric and select/expand-call-path
// requests (targets: first paint < 1 s, each answer < 100 ms).
// node viewer_bench.mjs --orrery BIN --fixture BIN --node-modules DIR --out DIR
//   [--callpaths N] [--locations L] [--samples K]

import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  artifactsDir, launchBrowser, parseArgs, startViewer, writeFixture,
} from '../../tests/viewer/browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const callpaths = Number(args.callpaths ?? 10000);
const locations = Number(args.locations ?? 1000);
const samples = Number(args.samples ?? 40);
const out = artifactsDir(args.out);
const report = path.join(out, `bench_${callpaths}x${locations}.h5`);

const ms = (x) => `${x.toFixed(1)} ms`;
function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${ms(at(0.5))}, p95 ${ms(at(0.95))}, max ${ms(sorted[sorted.length - 1])} (n=${times.length})`;
}

if (!existsSync(report)) {
  const t0 = performance.now();
  writeFixture(args.fixture, report, ['--callpaths', String(callpaths), '--locations', String(locations), '--seed', '1']);
  console.log(`fixture: wrote ${report} (${(statSync(report).size / 2 ** 20).toFixed(0)} MiB) in ${ms(performance.now() - t0)}`);
}

const t0 = performance.now();
const viewer = await startViewer(args.orrery, [report]);
console.log(`orrery view: address printed after ${ms(performance.now() - t0)} (header read)`);
const base = viewer.url.split('?')[0];
const token = new URL(viewer.url).searchParams.get('token');

async function timed(endpoint, params) {
  const start = performance.now();
  const response = await fetch(`${base}api/${endpoint}?${new URLSearchParams(params)}`, { headers: { 'X-Orrery-Token': token } });
  const body = await response.text();
  if (!response.ok) throw new Error(`${endpoint}: ${response.status} ${body}`);
  return { time: performance.now() - start, bytes: body.length, json: () => JSON.parse(body) };
}

const browser = await launchBrowser(args['node-modules']);
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const firstPaint = async () => {
    await page.goto(viewer.url, { waitUntil: 'commit' });
    await page.waitForSelector('body[data-ready]', { timeout: 120000 });
    return page.evaluate(() => window.__orreryFirstPaint);
  };
  const cold = await firstPaint();
  // Trees painted at once; then the selection's values; then every metric total ("ready").
  const [valuesPaint, readyAt] = await page.evaluate(() => [window.__orreryValuesPaint, performance.now()]);
  console.log(`first paint, cold (server still loading metrics): ${ms(cold)}`);
  console.log(`  cold: selection's values painted ${ms(valuesPaint)}, all metric totals by ${ms(readyAt)}`);
  const warm = [];
  for (let i = 0; i < 5; ++i) warm.push(await firstPaint());
  console.log(`first paint, warm: ${summary(warm)}`);
  await page.screenshot({ path: path.join(out, 'bench_first_paint.png') });

  const header = (await timed('header', {})).json();
  const nMetrics = header.metrics.length;
  const nCallpaths = header.callpaths.parent.length;
  const hasChildren = new Set(header.callpaths.parent.filter((p) => p >= 0));
  const selectMetric = [];
  const selectCallpath = [];
  const expand = [];
  let bytes = 0;
  for (let i = 0; i < samples; ++i) {
    const metric = i % nMetrics;
    const metricIncl = (i >> 3) % 2 === 0 ? 1 : 0;
    const a = await timed('callpaths', { metric, metric_incl: metricIncl });
    selectMetric.push(a.time);
    bytes = a.bytes;
    const callpath = Math.floor((i * 7919) % nCallpaths);
    selectCallpath.push((await timed('locations', { metric, metric_incl: metricIncl, callpath, callpath_incl: 1 })).time);
    const parent = [...hasChildren][i % hasChildren.size];
    expand.push((await timed('locations', { metric, metric_incl: metricIncl, callpath: parent, callpath_incl: 0 })).time);
  }
  console.log(`server, select metric (call-tree values, ${(bytes / 1024).toFixed(0)} KiB): ${summary(selectMetric)}`);
  console.log(`server, select call path (per-process values): ${summary(selectCallpath)}`);
  console.log(`server, expand call path (exclusive per-process values): ${summary(expand)}`);
  const heat = [];
  for (let i = 0; i < 10; ++i) heat.push((await timed('heatmap', { metric: i % nMetrics, metric_incl: 1, top: 20 })).time);
  console.log(`server, heat map (20 call paths x ${locations} processes): ${summary(heat)}`);
  // The findings page (wait-state metrics at their hottest call paths); cached by the page after its first answer.
  const findings = [];
  for (let i = 0; i < 5; ++i) findings.push((await timed('findings', {})).time);
  console.log(`server, findings (every wait-state metric, cube cached): ${summary(findings)}`);
  const findingsPaint = await page.evaluate(async () => {
    const start = performance.now();
    window.location.hash = '#chart=findings';
    await new Promise((resolve) => {
      const poll = () => (document.querySelector('#page[data-findings]') ? resolve() : requestAnimationFrame(poll));
      poll();
    });
    return performance.now() - start;
  });
  console.log(`browser, findings page painted after opening it: ${ms(findingsPaint)}`);

  // Whole interactions in the browser, timed inside the page: click, server
  // answer, re-render of the three trees and the chart.
  const clickToRepaint = (selector) => page.evaluate(async (sel) => {
    const before = document.body.dataset.ready;
    const start = performance.now();
    document.querySelector(sel).click();
    await new Promise((resolve) => {
      const poll = () => (document.body.dataset.ready !== before ? resolve() : requestAnimationFrame(poll));
      poll();
    });
    return performance.now() - start;
  }, selector);
  const expandTimes = [];
  for (const id of [0, 2]) expandTimes.push(await clickToRepaint(`#call-tree .row[data-id="${id}"] .toggle`));
  expandTimes.push(await clickToRepaint('#metric-tree .row[data-id="0"] .toggle'));
  console.log(`browser, expand a node, click to repaint: ${summary(expandTimes)}`);
  const selectTimes = [];
  for (const id of [1, 5, 6, 7, 0]) selectTimes.push(await clickToRepaint(`#metric-tree .row[data-id="${id}"] .label`));
  const visible = await page.$$eval('#call-tree .row', (rows) => rows.map((r) => r.dataset.id));
  for (const id of visible.slice(1, 6)) selectTimes.push(await clickToRepaint(`#call-tree .row[data-id="${id}"] .label`));
  console.log(`browser, select a metric or call path, click to repaint: ${summary(selectTimes)}`);
  await page.screenshot({ path: path.join(out, 'bench_expanded.png') });
  await clickToRepaint('#metric-tree .row[data-id="1"] .label');  // Execution: nonzero everywhere
  const chartTimes = [];
  for (const chart of ['heat', 'radar', 'bars']) {
    chartTimes.push(await clickToRepaint(`#chart-tabs button[data-chart="${chart}"]`));
    await page.screenshot({ path: path.join(out, `bench_chart_${chart}.png`) });
  }
  console.log(`browser, switch chart (heat map, Kiviat, bars), click to repaint: ${summary(chartTimes)}`);
  const status = readFileSync(`/proc/${viewer.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  if (status) console.log(`server resident memory: ${(Number(status[1]) / 1024).toFixed(0)} MiB`);
} finally {
  await browser.close();
  viewer.stop();
}
