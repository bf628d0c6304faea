// The timeline panel in a real browser (Debian chromium via playwright-core).
// node timeline_browser_test.mjs --orrery BIN --report EXP/report.h5 --node-modules DIR --out DIR
// The report's directory must hold its trace (traces.otf2), as `orrery run` +
// `orrery-analyze` leave it. Checks: the timeline is requested and drawn
// (non-background pixels, warm MPI and red wait pixels), the wheel zooms
// (the next request asks for a smaller window, which the URL keeps),
// clicking an MPI call selects its call path in the call tree, and a view
// started with --no-trace says why it has no timeline.

import path from 'node:path';
import {
  artifactsDir, check, failed, launchBrowser, parseArgs, startViewer, finish, openPage,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, 'timeline'));
const shot = (page, name) => page.screenshot({ path: path.join(out, `${name}.png`) });

/** Counts of canvas pixels: not background, warm (MPI), red (waits). */
function pixels(page) {
  return page.$eval('#timeline canvas', (canvas) => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let drawn = 0;
    let red = 0;
    let warm = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (r < 250 || g < 250 || b < 250) drawn += 1;
      if (r === 0xdc && g === 0x26 && b === 0x26) red += 1;
      if (r > 200 && g > 80 && g < 200 && b < 60) warm += 1;
    }
    return { drawn, red, warm, total: data.length / 4 };
  });
}

async function withTrace(page, url, browser) {
  const requests = [];
  page.on('request', (request) => {
    const u = new URL(request.url());
    if (u.pathname.endsWith('/api/timeline')) {
      requests.push({ t0: Number(u.searchParams.get('t0')), t1: Number(u.searchParams.get('t1')),
        width: Number(u.searchParams.get('width')) });
    }
  });
  await page.goto(`${url}#chart=timeline`);
  await page.waitForSelector('#timeline[data-drawn]:not([data-busy])', { timeout: 20000 });
  check(requests.length >= 1, 'the page asked /api/timeline');
  const first = requests.at(-1);
  check(first.t0 === 0 && first.t1 > 0 && first.width > 100, `first window is the whole run: ${JSON.stringify(first)}`);
  const before = await pixels(page);
  check(before.drawn > before.total * 0.1, `the timeline is drawn (${before.drawn} of ${before.total} pixels)`);
  check(before.warm > 50, `MPI calls are drawn warm (${before.warm} pixels)`);
  check(before.red > 10, `late-sender waits are drawn red (${before.red} pixels)`);
  await shot(page, '01-whole-run');

  // Wheel up over the middle: the next request asks for a smaller window around the cursor.
  const box = await page.$eval('#timeline canvas', (c) => {
    const r = c.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const drawnBefore = await page.$eval('#timeline', (e) => e.dataset.drawn);
  const count = requests.length;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((d) => {
    const e = document.querySelector('#timeline');
    return e.dataset.drawn !== d && !e.dataset.busy;
  }, drawnBefore, { timeout: 10000 });
  check(requests.length > count, 'zooming asked the server again');
  const zoomed = requests.at(-1);
  check(zoomed.t1 - zoomed.t0 < (first.t1 - first.t0) * 0.9,
    `the wheel zoomed in: ${zoomed.t1 - zoomed.t0} < ${first.t1 - first.t0}`);
  check(zoomed.t0 > first.t0 && zoomed.t1 < first.t1, 'the zoomed window is inside the old one');
  const hash = await page.evaluate(() => window.location.hash);
  check(/tw=/.test(hash), `the URL keeps the time window: ${hash}`);
  await shot(page, '02-zoomed');

  // A fresh page with that URL asks for the same window.
  const again = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const restored = [];
  again.on('request', (request) => {
    const u = new URL(request.url());
    if (u.pathname.endsWith('/api/timeline')) restored.push(Number(u.searchParams.get('t1')) - Number(u.searchParams.get('t0')));
  });
  await again.goto(page.url());
  await again.waitForSelector('#timeline[data-drawn]', { timeout: 20000 });
  check(Math.abs(restored[0] - (zoomed.t1 - zoomed.t0)) < 1e-9 * Math.max(1, zoomed.t1),
    `the URL restores the window: ${restored[0]} vs ${zoomed.t1 - zoomed.t0}`);
  await again.close();

  // Double-click resets to the whole run.
  const drawnZoomed = await page.$eval('#timeline', (e) => e.dataset.drawn);
  await page.mouse.dblclick(box.x + 40, box.y + 10);
  await page.waitForFunction((d) => {
    const e = document.querySelector('#timeline');
    return e.dataset.drawn !== d && !e.dataset.busy && !/tw=/.test(window.location.hash);
  }, drawnZoomed, { timeout: 10000 }).catch(() => {});
  check(!/tw=/.test(await page.evaluate(() => window.location.hash)), 'double-click resets the window');
  const reset = requests.at(-1);
  check(reset.t0 === first.t0 && reset.t1 === first.t1, `double-click asked for the whole run again: ${JSON.stringify(reset)}`);

  // Zoom into the communication phase (eight wheel steps at 70 % of the width).
  const drawnWhole = await page.$eval('#timeline', (e) => e.dataset.drawn);
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.5);
  for (let i = 0; i < 8; ++i) await page.mouse.wheel(0, -200);
  await page.waitForFunction((d) => {
    const e = document.querySelector('#timeline');
    return e.dataset.drawn !== d && !e.dataset.busy && e.__settled !== false;
  }, drawnWhole, { timeout: 10000 });
  await page.waitForTimeout(200);
  await page.waitForFunction(() => !document.querySelector('#timeline').dataset.busy, null, { timeout: 10000 });
  const deep = requests.at(-1);
  check(deep.t1 - deep.t0 < (first.t1 - first.t0) * 0.2, `eight wheel steps zoom in further: ${deep.t1 - deep.t0}`);

  // Dragging right by 200 px shows earlier times: same length, shifted by 200 px worth.
  const drawnDeep = await page.$eval('#timeline', (e) => e.dataset.drawn);
  await page.mouse.move(box.x + 300, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + 400, box.y + box.height * 0.5, { steps: 4 });
  await page.mouse.move(box.x + 500, box.y + box.height * 0.5, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction((d) => {
    const e = document.querySelector('#timeline');
    return e.dataset.drawn !== d && !e.dataset.busy;
  }, drawnDeep, { timeout: 10000 });
  const panned = requests.at(-1);
  // The time axis is the canvas less the rank labels' gutter.
  const plotWidth = await page.evaluate(() => window.__orreryTimeline.plotWidth());
  const shift = (200 / plotWidth) * (deep.t1 - deep.t0);
  check(Math.abs((deep.t0 - panned.t0) - shift) < shift * 0.02
    && Math.abs((panned.t1 - panned.t0) - (deep.t1 - deep.t0)) < 1e-9,
  `dragging pans: ${JSON.stringify(deep)} -> ${JSON.stringify(panned)}, expected shift ${shift}`);

  // Click the widest point-to-point or collective call drawn (not MPI_Init/Finalize):
  // its call path becomes the call tree's selection.
  const target = await page.evaluate(() => {
    const t = window.__orreryTimeline;
    let best = null;
    for (const row of t.answer.rows) {
      for (const span of row.spans) {
        const [b, e, region, instance] = span;
        if (instance < 0 || t.regions[region].kind !== 'mpi' || /^MPI_(Init|Finalize)/.test(t.regions[region].name)) continue;
        const width = t.xOf(e) - t.xOf(b);
        if (!best || width > best.width) {
          best = { width, x: (t.xOf(b) + t.xOf(e)) / 2, y: t.rowY(row.rank) + t.rowHeight / 2, name: t.regions[region].name };
        }
      }
    }
    return best;
  });
  check(target !== null && target.width >= 2, `an MPI call is wide enough to click: ${JSON.stringify(target)}`);
  if (target) {
    const selectedBefore = await page.$eval('#call-tree .row.selected .label', (e) => e.textContent).catch(() => '');
    await page.mouse.move(box.x + target.x, box.y + target.y);
    const tip = await page.$eval('#timeline .timeline-tooltip', (e) => (e.hidden ? '' : e.textContent));
    check(tip.includes(target.name) && /rank \d/.test(tip), `hovering names the call and rank: ${tip}`);
    await page.mouse.click(box.x + target.x, box.y + target.y);
    await page.waitForFunction((name) => {
      const label = document.querySelector('#call-tree .row.selected .label');
      return label && label.textContent === name && !document.body.dataset.busy;
    }, target.name, { timeout: 10000 }).catch(() => {});
    const selected = await page.$eval('#call-tree .row.selected .label', (e) => e.textContent).catch(() => '');
    check(selected === target.name, `clicking ${target.name} selected it in the call tree (selected: ${selected}, before: ${selectedBefore})`);
    check(/cp=\d+/.test(await page.evaluate(() => window.location.hash)), 'the selection is in the URL');
    await shot(page, '03-selected');
  }
}

async function withoutTrace(page, url) {
  await page.goto(`${url}#chart=timeline`);
  await page.waitForSelector('#timeline[data-available="false"]', { timeout: 20000 });
  const text = await page.$eval('#timeline .timeline-status', (e) => e.textContent);
  check(/No timeline/.test(text) && /--no-trace/.test(text), `the panel says why there is no timeline: ${text}`);
}

const browser = await launchBrowser(args['node-modules']);
try {
  for (const [options, scenario] of [[[], withTrace], [['--no-trace'], withoutTrace]]) {
    const viewer = await startViewer(args.orrery, [args.report, ...options]);
    try {
      const page = await openPage(browser);
      await scenario(page, viewer.url, browser);
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
finish('timeline', out);
