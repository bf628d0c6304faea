// The timeline drawn from the trace's multi-resolution summary shows the
// same per-rank waiting as the timeline drawn from the events, and stays
// honest (red on a rank <= its real waiting + one pixel's time).
// node timeline_summary_browser_test.mjs --orrery BIN --report EXP/report.h5 --node-modules DIR --out DIR
// Two viewers on the same report: --timeline-summary never (events) and always (summary).

import path from 'node:path';
import {
  apiGet, artifactsDir, check, launchBrowser, parseArgs, redSeconds, startViewer, finish, openPage,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, 'timeline-summary'));

/** Opens the timeline (optionally a window) and returns what it drew: per rank the waits' total and the red drawn. */
async function drawn(page, url, window) {
  await page.goto(`${url}#chart=timeline${window ? `&tw=${window[0]},${window[1]}` : ''}`);
  await page.waitForSelector('#timeline[data-drawn]:not([data-busy])', { timeout: 30000 });
  await page.waitForTimeout(200);
  await page.waitForFunction(() => !document.querySelector('#timeline').dataset.busy, null, { timeout: 30000 });
  const info = await page.evaluate(() => {
    const t = window.__orreryTimeline;
    return {
      pixel: t.pixelTime(),
      window: t.window,
      source: t.answer.source ?? null,
      status: document.querySelector('#timeline .timeline-status').dataset.source ?? null,
      drawn: [...t.drawnWait.entries()],
      rows: t.answer.rows.map((r) => ({ rank: r.rank, wait: r.waits.reduce((a, w) => a + w[2], 0), waits: r.waits })),
    };
  });
  info.red = new Map();
  for (const row of info.rows) info.red.set(row.rank, await redSeconds(page, row.rank));
  info.drawn = new Map(info.drawn);
  return info;
}

const browser = await launchBrowser(args['node-modules']);
const events = await startViewer(args.orrery, [args.report, '--timeline-summary', 'never']);
const summary = await startViewer(args.orrery, [args.report, '--timeline-summary', 'always']);
try {
  const page = await openPage(browser);
  const info = await apiGet(summary.url, 'timeline_info');
  check(info.summary?.used === true, `the summary is used: ${JSON.stringify(info.summary)}`);
  check(/orrery-timeline\.summary$/.test(info.summary?.path ?? ''), `it lives beside the trace: ${info.summary?.path}`);

  const a = await drawn(page, events.url);
  await page.screenshot({ path: path.join(out, 'events.png') });
  const b = await drawn(page, summary.url);
  await page.screenshot({ path: path.join(out, 'summary.png') });
  check(a.source === null, 'the events viewer draws from the events');
  check(b.source?.from === 'summary' && b.status === 'summary', `the whole run is drawn from the summary: ${JSON.stringify(b.source)}`);
  check(b.source.bin <= b.pixel, `a bin (${b.source.bin} s) is at most a pixel (${b.pixel} s)`);
  for (const row of a.rows) {
    const other = b.rows.find((r) => r.rank === row.rank);
    // Each side rounds each entry to a nanosecond; the summary's edge bins are shared in proportion.
    const rounding = 1e-9 * (row.waits.length + other.waits.length) + 2 * b.source.bin;
    check(Math.abs(other.wait - row.wait) <= rounding,
      `rank ${row.rank}: waiting from the summary ${other.wait} s = from the events ${row.wait} s (± ${rounding})`);
    check(b.drawn.get(row.rank) <= row.wait + b.pixel + 1e-12,
      `rank ${row.rank}: red drawn from the summary ${b.drawn.get(row.rank)} s <= real waiting ${row.wait} s + one pixel`);
    check(b.red.get(row.rank) <= row.wait + b.pixel + 2e-4,
      `rank ${row.rank}: red canvas pixels ${b.red.get(row.rank)} s <= real waiting ${row.wait} s + one pixel`);
    // The red area the page drew (its own sum of what it filled; the canvas's exact-red pixels
    // undercount the events' antialiased sub-pixel waits, so they only bound it from above).
    check(Math.abs(b.drawn.get(row.rank) - a.drawn.get(row.rank)) <= rounding + b.pixel,
      `rank ${row.rank}: the same red area drawn (${b.drawn.get(row.rank)} s from the summary, ${a.drawn.get(row.rank)} s from the events)`);
  }
  // The culprit (least waiting) shows least red when the waits differ by more than the drawing's resolution.
  const least = a.rows.reduce((x, y) => (y.wait < x.wait ? y : x));
  const most = a.rows.reduce((x, y) => (y.wait > x.wait ? y : x));
  if (most.wait - least.wait > 4 * b.pixel) {
    check(b.red.get(least.rank) < b.red.get(most.rank),
      `from the summary, the rank that waits least shows least red (${b.red.get(least.rank)} vs ${b.red.get(most.rank)})`);
  }

  // A window whose pixel is finer than a base bin: read from the events after a checkpoint, the same waits.
  const t1 = a.window[1];
  const narrow = [t1 * 0.5, t1 * 0.5 + t1 * 0.02];
  const c = await drawn(page, events.url, narrow);
  const d = await drawn(page, summary.url, narrow);
  check(d.source?.from === 'events' && d.status === 'events', `a 2 % window is read from the events: ${JSON.stringify(d.source)}`);
  for (const row of c.rows) {
    const other = d.rows.find((r) => r.rank === row.rank);
    check(JSON.stringify(other.waits) === JSON.stringify(row.waits),
      `rank ${row.rank}: the window's waits equal the events' (${other.waits.length} vs ${row.waits.length})`);
  }
  await page.screenshot({ path: path.join(out, 'narrow-summary.png') });
  await page.close();
} finally {
  events.stop();
  summary.stop();
  await browser.close();
}
finish('timeline summary', out);
