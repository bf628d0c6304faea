// The resource curves in a real browser (Debian chromium via playwright-core):
// the Resources panel and the curve under each rank's timeline row, on a
// pipeline run measured with --sampling-interval, checked against the
// trace's Metric events as otf2-print lists them; and the note on a run without samples.
// node resources_browser_test.mjs --orrery BIN --sampled REPORT --unsampled REPORT --node-modules DIR --out DIR [--docs DIR]

import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  artifactsDir, check, failed, launchBrowser, near, parseArgs, startViewer, finish,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, 'resources'));
const MiB = 1024 * 1024;

/** Per OTF2 location: the resource samples' values in order, from otf2-print. */
function tracedSamples(experiment) {
  const text = execFileSync('otf2-print', [path.join(experiment, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const byLocation = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('METRIC')) continue;
    const location = Number(line.split(/\s+/)[1]);
    const values = [...line.matchAll(/UINT64; (\d+)\)/g)].map((m) => Number(m[1]));
    if (!byLocation.has(location)) byLocation.set(location, []);
    byLocation.get(location).push(values);
  }
  return byLocation;
}

async function sampled(browser) {
  const viewer = await startViewer(args.orrery, [args.sampled]);
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => check(false, `page error: ${e.message}`));
    await page.goto(`${viewer.url}#chart=res`);
    await page.waitForFunction(() => document.body.dataset.ready && window.__orreryView?.ranks, null, { timeout: 30000 });
    const data = await page.evaluate(() => window.__orreryView);
    check(data.sampled, 'the run has samples');
    const traced = tracedSamples(path.dirname(args.sampled));
    const locations = [...traced.keys()].sort((a, b) => a - b);
    check(locations.length === data.ranks.length, `every rank sampled: ${locations.length} locations, ${data.ranks.length} ranks`);
    const option = await page.evaluate(() => window.__orreryCharts.chart.getOption());
    data.ranks.forEach((row, i) => {
      const expected = traced.get(locations[i]) ?? [];
      check(row.count === expected.length && row.samples.length === expected.length,
        `rank ${row.rank}: ${row.count} samples, the trace has ${expected.length}`);
      // The memory curve is each sample's resident set size; the CPU curve its CPU time's rate.
      const memory = option.series.find((s) => s.name === `rank ${row.rank}` && s.xAxisIndex === 0);
      check(memory && memory.data.length === expected.length
        && memory.data.every((p, k) => Math.abs(p[1] - expected[k][0] / MiB) < 1e-9), `rank ${row.rank}: the memory curve is the trace's resident set sizes`);
      const cpu = option.series.find((s) => s.name === `rank ${row.rank}` && s.xAxisIndex === 1);
      const k = Math.floor(expected.length / 2);
      const dt = row.samples[k][0] - row.samples[k - 1][0];
      near(cpu.data[k - 1][1], (expected[k][1] - expected[k - 1][1]) / 1e9 / dt, `rank ${row.rank}: CPU use between samples ${k - 1} and ${k}`, 1e-9);
      check(cpu.data.every((p) => p[1] >= 0 && p[1] <= 64), `rank ${row.rank}: CPU use is a count of cores`);
    });
    await page.screenshot({ path: path.join(out, 'resources.png') });
    if (args.docs) await page.screenshot({ path: path.join(args.docs, 'viewer-resources.png') });

    // The curve under each timeline row.
    await page.goto(`${viewer.url}#chart=timeline&rc=cpu`);
    await page.waitForFunction(() => window.__orreryTimeline?.drawnCurvePoints > 0 && !document.querySelector('#timeline').dataset.busy,
      null, { timeout: 30000 });
    const drawn = await page.evaluate(() => ({ points: window.__orreryTimeline.drawnCurvePoints,
      status: document.querySelector('.timeline-status').textContent, select: document.querySelector('#timeline-curve').value }));
    const rates = data.ranks.reduce((n, r) => n + r.samples.length - 1, 0);
    check(drawn.points > 0 && drawn.points <= rates, `the CPU curve drawn under the rows: ${drawn.points} points of ${rates}`);
    check(/curve under each row: CPU use/.test(drawn.status) && drawn.select === 'cpu', `the status names the curve: ${drawn.status}`);
    await page.screenshot({ path: path.join(out, 'timeline-cpu-curve.png') });
    if (args.docs) await page.screenshot({ path: path.join(args.docs, 'viewer-timeline-curves.png') });
    await page.close();
  } finally {
    viewer.stop();
  }
}

async function unsampled(browser) {
  const viewer = await startViewer(args.orrery, [args.unsampled]);
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`${viewer.url}#chart=res`);
    await page.waitForSelector('#page .note', { timeout: 30000 });
    const note = await page.$eval('#page .note', (e) => e.textContent);
    check(/no resource samples/.test(note) && /--sampling-interval/.test(note), `a run without samples says so: ${note}`);
    await page.goto(`${viewer.url}#chart=timeline&rc=memory`);
    await page.waitForFunction(() => /no resource curve/.test(document.querySelector('.timeline-status')?.textContent ?? ''), null, { timeout: 30000 });
    await page.close();
  } finally {
    viewer.stop();
  }
}

const browser = await launchBrowser(args['node-modules']);
try {
  for (const step of [sampled, unsampled]) {
    try {
      await step(browser);
    } catch (error) {
      check(false, `${step.name}: ${error.stack ?? error}`);
    }
  }
} finally {
  await browser.close();
}
finish('resources');
