// The findings page, the honest timeline and the views over the trace in a
// real browser (Debian chromium via playwright-core), on reports produced by
// the pipeline (the stencil with a slow rank, its trace beside it).
// node views_browser_test.mjs --orrery BIN --report SLOW.h5 --other EVEN.h5 --node-modules DIR --out DIR [--docs DIR]
// Numbers on the page are checked against `orrery stat` (the report) and
// against the server's own full-resolution answers (the trace).

import path from 'node:path';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import {
  act, artifactsDir, check, failed, launchBrowser, near, parseArgs, startViewer, stat, treeValues, finish, openPage, redSeconds, apiGet,
} from './browser_harness.mjs';

const args = parseArgs(process.argv.slice(2));
const out = artifactsDir(path.join(args.out, 'views'));
const shots = [];
async function shot(page, name) {
  const file = path.join(out, `${name}.png`);
  await page.screenshot({ path: file });
  shots.push(file);
}

async function view(page, chart) {
  await act(page, () => page.click(`#chart-tabs button[data-chart="${chart}"]`));
}

/** Expands or collapses a tree row until it is so: a click that lands while the tree
 *  is being redrawn hits a row that is replaced and is lost (a fresh-clone CI run saw
 *  Time stay expanded, and every value after it was the exclusive one). */
async function setExpanded(page, panel, id, expanded) {
  const row = `${panel} .row[data-id="${id}"]`;
  for (let attempt = 0; attempt < 3; ++attempt) {
    await page.waitForFunction(() => document.body.dataset.ready && !document.body.dataset.busy, null, { timeout: 30000 });
    if (await page.$eval(row, (r) => r.dataset.expanded === '1') === expanded) return;
    await act(page, () => page.click(`${row} .toggle`));
  }
  check(await page.$eval(row, (r) => r.dataset.expanded === '1') === expanded,
    `${row} ${expanded ? 'expanded' : 'collapsed'} after three clicks`);
}

async function timelineDrawn(page, before) {
  await page.waitForFunction((d) => {
    const e = document.querySelector('#timeline');
    return e.dataset.drawn && e.dataset.drawn !== d && !e.dataset.busy;
  }, before ?? null, { timeout: 20000 });
  // Requests are debounced: wait until no newer one is pending.
  await page.waitForTimeout(150);
  await page.waitForFunction(() => !document.querySelector('#timeline').dataset.busy, null, { timeout: 20000 });
}

async function findingsAndFacts(page, url) {
  await page.goto(url);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  check(await page.evaluate(() => document.body.dataset.chart) === 'findings', 'the page opens on the findings');
  const items = await page.$$eval('.finding-item', (list) => list.map((e) => ({
    metric: e.dataset.metric, value: Number(e.dataset.value), text: e.textContent,
  })));
  check(items.length > 0, `findings listed: ${items.length}`);
  // Largest first, and each value is the metric's total in the report.
  for (let i = 1; i < items.length; ++i) check(items[i].value <= items[i - 1].value, `finding ${i} ranked by value`);
  for (const item of items) {
    const expected = stat(args.orrery, args.report, item.metric, ['--inclusive']).total;
    near(item.value, expected, `finding ${item.metric}: value is the report's total`, 1e-6);
  }
  const late = items.find((i) => i.metric === 'late_sender');
  check(late !== undefined, 'Late Sender is a finding of the slow stencil');
  check(/What to do:/.test(items[0].text) && /most affected: rank \d/.test(items[0].text), `a finding says where, who and what to do: ${items[0].text}`);
  const facts = Object.fromEntries(await page.$$eval('.facts-table tr[data-fact]', (rows) => rows.map((r) => [r.dataset.fact, r.querySelector('td').textContent])));
  check(/stencil2d/.test(facts.Command ?? ''), `facts: the command line (${facts.Command})`);
  check(facts.Ranks === '4', `facts: 4 ranks (${facts.Ranks})`);
  check(/^[\d,]+$/.test(facts.Events ?? ''), `facts: events from run.json (${facts.Events})`);
  check(/ms|s$/.test(facts['Trace length'] ?? ''), `facts: the trace length (${facts['Trace length']})`);
  await shot(page, 'findings');
  return items;
}

async function followFinding(page, url, items) {
  const index = items.findIndex((i) => i.metric === 'late_sender');
  const finding = (await apiGet(url, 'findings')).findings.find((f) => f.metric === 'late_sender');
  await page.click(`a.finding[data-index="${index}"]`);
  await page.waitForFunction(() => document.body.dataset.chart === 'timeline' && document.body.dataset.ready, null, { timeout: 20000 });
  await timelineDrawn(page);
  const state = await page.evaluate(() => ({
    hash: window.location.hash,
    callpath: document.querySelector('#call-tree .row.selected')?.dataset.id,
    process: document.querySelector('#process-tree .row.selected')?.dataset.id,
    worst: JSON.parse(document.body.dataset.worst ?? 'null'),
    window: window.__orreryTimeline.window,
  }));
  check(state.callpath === String(finding.callpath), `the finding selected its call path (${state.callpath} vs ${finding.callpath})`);
  check(state.process === String(finding.locations[0]), `the finding selected its most affected process (${state.process})`);
  check(/metric=late_sender/.test(state.hash), `the finding selected its metric: ${state.hash}`);
  check(state.worst && state.window[0] <= state.worst.begin && state.window[1] >= state.worst.end
    && state.window[1] - state.window[0] < 4 * (state.worst.end - state.worst.begin) + 1e-6,
  `the timeline is zoomed to the worst instance: ${JSON.stringify(state)}`);
  // The selected call path's instances are marked, and the selected rank's row is highlighted.
  const marks = await page.evaluate(() => window.__orreryTimeline.answer.rows.reduce((n, r) => n + (r.marks?.length ?? 0), 0));
  check(marks > 0, `the call path's instances are marked in the timeline (${marks})`);
  await shot(page, 'finding-timeline');
}

async function honestOverview(page, url) {
  await page.goto(`${url}#chart=timeline`);
  await page.waitForSelector('#timeline[data-drawn]:not([data-busy])', { timeout: 20000 });
  await timelineDrawn(page, null);
  const h = await apiGet(url, 'header');
  const late = h.metrics.findIndex((m) => m.name === 'late_sender');
  const real = (await apiGet(url, 'locations', { metric: late, metric_incl: 1, callpath: 'all' })).values;
  const info = await page.evaluate(() => {
    const t = window.__orreryTimeline;
    return { pixel: t.pixelTime(), drawn: [...t.drawnWait.entries()],
      totals: t.answer.rows.map((r) => [r.rank, r.waits.reduce((a, w) => a + w[2], 0), r.waits.reduce((a, w) => a + (w[1] - w[0]), 0)]) };
  });
  const drawn = new Map(info.drawn);
  for (const [rank, total, extent] of info.totals) {
    // The report's Late Sender of the rank (the analyzer, independently) against the trace's waits.
    const reportWait = real[h.locations.findIndex((l) => l.rank === rank)];
    check(Math.abs(total - reportWait) <= 0.1 * reportWait + 2e-4,
      `rank ${rank}: the timeline's waiting ${total} s is the report's Late Sender ${reportWait} s`);
    check(drawn.get(rank) <= total + info.pixel + 1e-12,
      `rank ${rank}: red drawn ${drawn.get(rank)} s <= real waiting ${total} s + one pixel ${info.pixel} s (merged extent ${extent} s)`);
    const pixels = await redSeconds(page, rank);
    check(pixels <= reportWait * 1.1 + info.pixel + 2e-4,
      `rank ${rank}: red pixels on the canvas ${pixels} s <= the report's waiting ${reportWait} s + one pixel`);
  }
  // The culprit (least waiting) shows least red.
  const least = info.totals.reduce((a, b) => (b[1] < a[1] ? b : a));
  const most = info.totals.reduce((a, b) => (b[1] > a[1] ? b : a));
  // Ordered only when the real waits differ by more than the drawing's
  // resolution (on a loaded machine the measured run's waits can come out
  // nearly equal); otherwise the red must differ by no more than they do.
  // The red the timeline drew (area / row height): counting pure-red canvas
  // pixels misses waits drawn thinner than a pixel (antialiased, blended), so
  // a rank whose waiting is many short merged waits could show none; the
  // canvas is held to the report above (no more red than the waiting).
  const leastRed = drawn.get(least[0]);
  const mostRed = drawn.get(most[0]);
  const gap = most[1] - least[1];
  if (gap > 4 * info.pixel) {
    check(leastRed < mostRed, `the rank that waits least shows least red (${leastRed} s vs ${mostRed} s)`);
  } else {
    check(Math.abs(mostRed - leastRed) <= gap + 4 * info.pixel,
      `ranks whose waiting differs by ${gap} s show red within that and four pixels (${leastRed} s vs ${mostRed} s)`);
  }

  // Legend: regions drawn, distinct colours, the wait and the messages.
  const legend = await page.$$eval('#timeline .timeline-legend .item', (items) => items.map((i) => ({
    kind: i.dataset.kind, text: i.textContent, colour: i.querySelector('.key').style.background,
  })));
  check(legend.some((l) => l.kind === 'wait' && /Late Sender/.test(l.text)), 'the legend names the waits');
  const regionKeys = legend.filter((l) => ['compute', 'mpi'].includes(l.kind));
  check(regionKeys.length >= 3, `the legend lists the regions drawn: ${regionKeys.map((l) => l.text)}`);
  check(new Set(regionKeys.map((l) => l.colour)).size === regionKeys.length, `each region its own colour: ${JSON.stringify(regionKeys)}`);
  // Rank labels: every rank at 4 ranks; grouped when rows are thin.
  const labels = await page.$eval('#timeline', (e) => e.dataset.rankLabels);
  check(labels === 'rank 0|rank 1|rank 2|rank 3', `every rank labelled: ${labels}`);
  const grouped = await page.evaluate(() => {
    const t = window.__orreryTimeline;
    const keep = t.rowHeight;
    t.rowHeight = 4;
    t.draw();
    const text = t.element.dataset.rankLabels;
    t.rowHeight = keep;
    t.draw();
    return text;
  });
  check(grouped === '0–3', `at 4 px per row the ranks are labelled in groups: ${grouped}`);
  await shot(page, 'timeline-overview');

  // Hover over a receive in a zoomed window names its sender, bytes, tag and the wait kind.
  const target = await page.evaluate(async () => {
    const t = window.__orreryTimeline;
    for (const row of t.answer.rows) {
      for (const [b, e, region, instance] of row.spans) {
        if (instance >= 0 && /MPI_(Recv|Wait)/.test(t.regions[region].name) && t.xOf(e) - t.xOf(b) >= 3) {
          return { x: (t.xOf(b) + t.xOf(e)) / 2, y: t.rowY(row.rank) + t.rowHeight / 2, rank: row.rank };
        }
      }
    }
    return null;
  });
  if (target === null) {
    // Zoom in until a receive is wide enough (the whole run has thousands).
    const box = await page.$eval('#timeline canvas', (c) => c.getBoundingClientRect().toJSON());
    // The drawing before the zoom: read after the wheel, a fast redraw could
    // already be the one to wait for, and the wait would never end.
    const before = await page.$eval('#timeline', (e) => e.dataset.drawn);
    await page.mouse.move(box.x + box.width * 0.6, box.y + 60);
    for (let i = 0; i < 14; ++i) await page.mouse.wheel(0, -200);
    await timelineDrawn(page, before);
    // The first drawing after the wheel can be an intermediate zoom (a fresh-
    // clone run drew one whose rows still had no single receives): wait until
    // the answer holds a receive; if none comes, the check below fails.
    await page.waitForFunction(() => {
      const t = window.__orreryTimeline;
      return t.answer.rows.some((row) => row.spans.some(([, , region, instance]) =>
        instance >= 0 && /MPI_(Recv|Wait)/.test(t.regions[region].name)));
    }, null, { timeout: 20000 }).catch(() => {});
  }
  const hover = target ?? await page.evaluate(() => {
    const t = window.__orreryTimeline;
    let best = null;
    for (const row of t.answer.rows) {
      for (const [b, e, region, instance] of row.spans) {
        const w = t.xOf(e) - t.xOf(b);
        if (instance >= 0 && /MPI_(Recv|Wait)/.test(t.regions[region].name) && (!best || w > best.w)) {
          best = { w, x: (t.xOf(Math.max(b, t.window[0])) + t.xOf(Math.min(e, t.window[1]))) / 2, y: t.rowY(row.rank) + t.rowHeight / 2, rank: row.rank };
        }
      }
    }
    return best;
  });
  check(hover !== null, 'a receive to hover');
  if (hover) {
    const box = await page.$eval('#timeline canvas', (c) => c.getBoundingClientRect().toJSON());
    await page.mouse.move(box.x + hover.x, box.y + hover.y);
    await page.mouse.move(box.x + hover.x + 1, box.y + hover.y);
    await page.waitForFunction(() => /from rank \d/.test(document.querySelector('#timeline .timeline-tooltip').textContent), null, { timeout: 5000 }).catch(() => {});
    const tip = await page.$eval('#timeline .timeline-tooltip', (e) => e.textContent);
    check(/receives \d+ messages?: from rank \d, [\d.]+ (B|KiB|MiB), tag \d+/.test(tip), `hover names sender, bytes and tag: ${tip}`);
    await shot(page, 'timeline-hover');
    // Clicking a bar selects its process.
    await page.mouse.click(box.x + hover.x, box.y + hover.y);
    await page.waitForFunction((r) => document.querySelector('#process-tree .row.selected .label')?.textContent === `rank ${r}`,
      hover.rank, { timeout: 10000 }).catch(() => {});
    const selected = await page.$eval('#process-tree .row.selected .label', (e) => e.textContent).catch(() => '');
    check(selected === `rank ${hover.rank}`, `clicking rank ${hover.rank}'s bar selected its process (${selected})`);
  }
}

async function treesAndCharts(page, url) {
  await page.goto(`${url}#chart=bars&mode=root`);
  await page.waitForSelector('body[data-ready]');
  // Small percentages keep digits.
  await setExpanded(page, '#metric-tree', 0, true);
  for (const panel of ['#metric-tree', '#call-tree', '#process-tree']) {
    for (const v of Object.values(await treeValues(page, panel))) {
      if (v.shown !== null && v.shown !== 0) check(!/^-?0\.00 %$/.test(v.text), `${panel} ${v.label}: ${v.shown} % is not printed as ${v.text}`);
    }
  }
  // Sort by value: units stay together, then the largest first by the node's inclusive value.
  await act(page, () => page.check('#sort'));
  const rows = await page.$$eval('#metric-tree .row', (list) => list.map((r) => ({
    id: Number(r.dataset.id), depth: Number(r.style.getPropertyValue('--depth')), key: Number(r.dataset.sortKey),
    expanded: r.dataset.expanded === '1', inclusive: null,
  })));
  const h = await apiGet(url, 'header');
  const roots = rows.filter((r) => r.depth === 0);
  const units = roots.map((r) => h.metrics[r.id].unit);
  const runs = units.filter((u, i) => i === 0 || u !== units[i - 1]);
  check(new Set(runs).size === runs.length, `sorted roots keep units together: ${units}`);
  for (let i = 1; i < roots.length; ++i) {
    if (units[i] === units[i - 1]) check(roots[i].key <= roots[i - 1].key, `root ${roots[i].id} sorted by value`);
  }
  const time = stat(args.orrery, args.report, 'time');
  const timeRow = rows.find((r) => h.metrics[r.id].name === 'time');
  check(timeRow.expanded, 'Time is expanded');
  near(timeRow.key, 100, 'an expanded node sorts by its inclusive value (% of root)', 1e-9);
  await act(page, () => page.uncheck('#sort'));
  await act(page, () => page.click('#modes button[data-mode="abs"]'));

  // The mean line is drawn at the mean.
  await setExpanded(page, '#metric-tree', 0, false);
  const mean = await page.evaluate(() => {
    const chart = window.__orreryCharts.chart;
    // The mark line as drawn: the red line element among the chart's shapes.
    const line = chart.getZr().storage.getDisplayList()
      .find((e) => e.style?.stroke === '#ef4444' && e.shape && 'y1' in e.shape);
    const expected = window.__orreryCharts.mean;
    return { y: line?.shape.y1, y2: line?.shape.y2, expectedY: chart.convertToPixel({ yAxisIndex: 0 }, expected), expected };
  });
  check(mean.y !== undefined && Math.abs(mean.y - mean.expectedY) < 0.5, `mean line at its value: ${JSON.stringify(mean)}`);
  near(mean.expected, time.total / time.n_locations, 'the mean is the mean over processes', 1e-9);
  await shot(page, 'per-process-mean');

  // Selecting a call path: the heat map shows it and what lies below it, labels distinct.
  const calls = await treeValues(page, '#call-tree');
  const [main] = Object.entries(calls)[0];
  await setExpanded(page, '#call-tree', main, true);
  const child = Object.entries(await treeValues(page, '#call-tree')).filter(([, v]) => !v.expanded).sort((a, b) => b[1].mine - a[1].mine)[0][0];
  const heatRequests = [];
  page.on('request', (r) => { if (r.url().includes('/api/heatmap')) heatRequests.push(new URL(r.url()).searchParams.get('under')); });
  await act(page, () => page.click(`#call-tree .row[data-id="${child}"] .label`));
  await view(page, 'heat');
  check(heatRequests.at(-1) === child, `the heat map follows the selected call path (under=${heatRequests.at(-1)}, selected ${child})`);
  const heatLabels = await page.evaluate(() => window.__orreryCharts.chart.getOption().yAxis[0].data);
  check(new Set(heatLabels).size === heatLabels.length, `heat-map labels are distinct: ${heatLabels}`);
  await shot(page, 'heatmap-selected');

  // Box plot and statistics across processes: min, median, max of the selected (collapsed) call path.
  await setExpanded(page, '#call-tree', main, false);
  await act(page, () => page.click(`#call-tree .row[data-id="${main}"] .label`));
  await view(page, 'profile');
  const perProcess = (await apiGet(url, 'locations', { metric: 0, metric_incl: 1, callpath: main, callpath_incl: 1 })).values.slice().sort((a, b) => a - b);
  const stats = await page.$$eval('#process-stats tbody tr:first-child [data-stat]', (cells) => Object.fromEntries(cells.map((c) => [c.dataset.stat, Number(c.dataset.raw)])));
  near(stats.min, perProcess[0], 'stats: min over processes');
  near(stats.max, perProcess.at(-1), 'stats: max over processes');
  near(stats.median, (perProcess[1] + perProcess[2]) / 2, 'stats: median of 4 processes');
  const flat = await page.$$eval('#flat-profile tbody tr', (list) => list.length);
  check(flat > 3, `flat profile rows: ${flat}`);
  await shot(page, 'profile');
  // CSV export of the tables.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const csv = readFileSync(await download.path(), 'utf8');
  check(/^flat profile/.test(csv) && csv.includes('across processes') && csv.includes(String(perProcess.at(-1))), 'CSV export has the tables and their numbers');
  await view(page, 'box');
  const boxes = await page.evaluate(() => window.__orreryCharts.chart.getOption().series[0].data[0]);
  near(boxes[4], perProcess.at(-1), 'box plot whisker at the max');
  await shot(page, 'boxplot');
  const [svg] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
  check(readFileSync(await svg.path(), 'utf8').includes('<svg'), 'SVG export is an SVG');
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#export-png')]);
  check(readFileSync(await png.path()).subarray(1, 4).toString() === 'PNG', 'PNG export is a PNG');
}

async function traceViews(page, url) {
  await page.goto(`${url}#chart=util`);
  await page.waitForFunction(() => document.body.dataset.ready && window.__orreryView?.counts, null, { timeout: 30000 });
  const data = await page.evaluate(() => window.__orreryView);
  const bin = (data.t1 - data.t0) / data.bins;
  // A bin in the middle: the processes computing then, from the timeline of that bin at full resolution.
  for (const k of [Math.floor(data.bins / 3), Math.floor(data.bins / 2)]) {
    const t0 = data.t0 + k * bin;
    const w = await apiGet(url, 'timeline', { t0, t1: t0 + bin, width: 16384 });
    const info = await apiGet(url, 'timeline_info');
    const kindTime = { compute: 0, mpi: 0, measurement: 0 };
    for (const row of w.rows) {
      for (const [b, e, region, , , , parts] of row.spans) {
        for (const [r, t] of parts ?? [[region, e - b]]) kindTime[info.regions[r].kind] += t;
      }
    }
    for (const kind of ['compute', 'mpi']) {
      near(data.counts[kind][k], kindTime[kind] / bin, `utilization: processes ${kind} in bin ${k}`, 1e-6);
    }
    const csvRow = await page.evaluate((i) => window.__orreryCharts.csvRows[i + 1], k);
    near(csvRow[2], data.counts.compute[k], 'the chart draws the counts');
  }
  const concurrency = data.concurrency.mpi.reduce((a, b) => a + b, 0);
  near(concurrency, data.t1 - data.t0, 'the concurrency profile covers the window once', 1e-9);
  await shot(page, 'utilization');

  await view(page, 'comm');
  await page.waitForFunction(() => window.__orreryView?.cells, null, { timeout: 30000 });
  const matrix = await page.evaluate(() => window.__orreryView);
  const bytes = stat(args.orrery, args.report, 'bytes_sent');
  for (const p of bytes.processes) {
    const row = matrix.cells.filter((c) => c[0] === p.rank).reduce((a, c) => a + c[2], 0);
    near(row, p.value, `matrix row of rank ${p.rank}: the bytes it sent (report)`, 1e-9);
  }
  // Cell 0 → 1 over a short window in the middle against the messages the timeline lists there.
  // The window: around a message from 0 to 1 that the whole run's timeline lists.
  const whole = await apiGet(url, 'timeline', { width: 1000 });
  const some = whole.messages.filter((m) => m[0] === 0 && m[2] === 1);
  check(some.length > 0, 'rank 0 sends to rank 1');
  const at = some[Math.floor(some.length / 2)]?.[1] ?? matrix.t1 / 2;
  const [s0, s1] = [Math.max(0, at - matrix.t1 / 400), at + matrix.t1 / 400];
  const w = await apiGet(url, 'timeline', { t0: s0, t1: s1, width: 2000 });
  check(!w.messages_truncated, `the short window lists every message (${w.message_count})`);
  const windowed = await apiGet(url, 'communication', { t0: s0, t1: s1 });
  const cell = windowed.cells.find((c) => c[0] === 0 && c[1] === 1);
  const fromMessages = w.messages.filter((m) => m[0] === 0 && m[2] === 1 && m[1] >= s0 && m[1] <= s1).reduce((a, m) => a + m[4], 0);
  check(cell !== undefined && cell[2] === fromMessages && fromMessages > 0, `cell 0→1 is the bytes rank 0 sent to rank 1: ${cell?.[2]} vs ${fromMessages}`);
  const drawnCell = await page.evaluate(() => window.__orreryCharts.chart.getOption().series[0].data.find((d) => d[0] === 1 && d[1] === 0));
  const wholeCell = matrix.cells.find((c) => c[0] === 0 && c[1] === 1);
  check(drawnCell && drawnCell[2] === wholeCell[2], `the matrix draws cell 0→1: ${drawnCell} vs ${wholeCell}`);
  const sizes = matrix.sizes.reduce((a, s) => a + s.messages, 0);
  check(sizes === matrix.cells.reduce((a, c) => a + c[3], 0), 'the size histogram counts every message');
  await shot(page, 'communication');
  await page.selectOption('#matrix-measure', 'late_sender');
  await page.waitForFunction(() => /late_sender/.test(window.location.hash) && document.body.dataset.ready);
  await shot(page, 'communication-late-sender');
}

async function comparison(page, url) {
  await page.goto(url);
  await page.waitForSelector('#commands:not([hidden])', { timeout: 20000 });
  const text = await page.$eval('#commands', (e) => e.textContent);
  check((text.match(/stencil2d/g) ?? []).length === 2 && /--delay-us/.test(text), `both runs' command lines shown: ${text}`);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  const columns = await page.$$eval('.facts-table tr[data-fact="Command"] td', (cells) => cells.map((c) => c.textContent));
  check(columns.length === 2 && columns[0] !== columns[1], `the facts compare both runs: ${columns}`);
  await shot(page, 'comparison-findings');
}

/** Per depth, how many region instances rank 0's trace has (otf2-print's ENTER/LEAVE events of location 0). */
function instancesPerDepth(experiment) {
  const text = execFileSync('otf2-print', ['-L', '0', path.join(experiment, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const counts = [];
  let depth = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('ENTER ')) {
      counts[depth] = (counts[depth] ?? 0) + 1;
      depth += 1;
    } else if (line.startsWith('LEAVE ')) {
      depth -= 1;
    }
  }
  return counts;
}

/** The call-stack view of rank 0 over the whole run: every instance of the trace at its depth. */
async function callStack(page, url) {
  await page.goto(`${url}#chart=stack`);
  await page.waitForFunction(() => document.body.dataset.ready && window.__orreryView?.levels, null, { timeout: 30000 });
  const data = await page.evaluate(() => window.__orreryView);
  const expected = instancesPerDepth(path.dirname(args.report));
  check(data.rank === 0 && data.depth === expected.length && data.depth >= 2, `call stack: ${data.depth} levels, the trace nests ${expected.length}`);
  data.levels.forEach((level, depth) => {
    const instances = level.reduce((n, piece) => n + piece[5], 0);
    check(instances === expected[depth], `call stack depth ${depth}: ${instances} instances drawn, the trace has ${expected[depth]}`);
    for (const [b, e, , , busy] of level) check(busy <= e - b + 1e-12, `depth ${depth}: a merged piece's time fits its extent`);
  });
  await shot(page, 'call-stack');
  // Clicking a single instance selects its call path.
  const single = data.levels[1].find((p) => p[3] >= 0);
  const instance = await apiGet(url, 'timeline_instance', { rank: 0, instance: single[3] });
  const [x, y] = await page.evaluate(([b, e]) => window.__orreryCharts.chart.convertToPixel({ gridIndex: 0 }, [(b + e) / 2, 1]), single);
  const box = await page.$eval('#chart', (el) => { const r = el.getBoundingClientRect(); return [r.x, r.y]; });
  await act(page, () => page.mouse.click(box[0] + x, box[1] + y));
  const selected = await page.evaluate(() => document.querySelector('#call-tree .row.selected')?.dataset.id);
  check(selected === String(instance.callpath), `clicking ${instance.name} selects its call path (${selected} vs ${instance.callpath})`);
}

/** The topology view: the stencil's Cartesian grid, each cell at the coordinates the run recorded, coloured by the report's time per rank. */
async function topology(page, url) {
  await page.goto(`${url}#chart=topo`);
  await page.waitForFunction(() => document.body.dataset.ready && window.__orreryView?.available !== undefined, null, { timeout: 30000 });
  const topo = await page.evaluate(() => window.__orreryView);
  check(topo.available, `the stencil's Cartesian grid is recorded: ${topo.reason ?? ''}`);
  if (!topo.available) return;
  const dir = path.join(path.dirname(args.report), 'topology');
  const time = stat(args.orrery, args.report, 'time');
  const series = await page.evaluate(() => window.__orreryCharts.chart.getOption().series[0].data);
  check(series.length === time.processes.length, `a cell per rank: ${series.length}`);
  for (const p of time.processes) {
    const record = JSON.parse(readFileSync(path.join(dir, `rank-${p.rank}.json`), 'utf8'));
    const cart = record.comms.find((c) => c.cart).cart;
    const cell = series.find((d) => d.rank === p.rank);
    check(cell && JSON.stringify(cell.coords) === JSON.stringify(cart.coords)
      && cell.value[0] === cart.coords[1] && cell.value[1] === cart.coords[0], `rank ${p.rank} at its recorded coordinates ${cart.coords}`);
    near(cell?.value[2], p.value, `rank ${p.rank}: the cell is its time in the report`, 1e-9);
  }
  await shot(page, 'topology');
}

/** A report away from its experiment: the topology view says why it has no grid. */
async function noTopology(page, url) {
  await page.goto(`${url}#chart=topo`);
  await page.waitForSelector('#page .note', { timeout: 20000 });
  const note = await page.$eval('#page .note', (e) => e.textContent);
  check(/No topology view/.test(note) && /MPI_Cart_create/.test(note), `without a topology the view says so: ${note}`);
}

/** The source pane: the stencil is not compiler-instrumented, so its regions have no source: a note says why. */
async function sourcePane(page, url) {
  await page.goto(`${url}#chart=source`);
  await page.waitForSelector('#page[data-source]', { timeout: 20000 });
  const note = await page.$eval('#page', (e) => e.textContent);
  check(/No source to show/.test(note) && /-g/.test(note), `the source pane says why there is no source: ${note}`);
}

/** Comparing, both runs' traces: the choice above the views, each run's numbers from its own trace. */
async function bothTraces(page, url) {
  const facts = await apiGet(url, 'facts');
  check(facts.traces.length === 2 && facts.traces.every((t) => t && t.duration > 0), `both runs have a trace: ${JSON.stringify(facts.traces)}`);
  await page.goto(`${url}#chart=timeline&tr=1`);
  await page.waitForSelector('#timeline[data-drawn]:not([data-busy])', { timeout: 20000 });
  await timelineDrawn(page, null);
  check(await page.isVisible('#trace-choice') && await page.$eval('#trace-run', (e) => e.value) === '1', 'the trace choice shows the other run');
  const shown = await page.evaluate(() => ({ run: window.__orreryTimeline.info.run, duration: window.__orreryTimeline.info.duration }));
  check(shown.run === 1, `the timeline reads the other run's trace (${shown.run})`);
  near(shown.duration, facts.traces[1].duration, 'the timeline spans the other run\'s trace', 1e-12);
  check(Math.abs(facts.traces[1].duration - facts.traces[0].duration) > 1e-6, 'the runs\' traces differ in length');
  await shot(page, 'comparison-timeline-other');
  // The matrix of each run: its rows are the bytes each rank sent in that run's report.
  for (const [run, report] of [[1, args.other], [0, args.report]]) {
    if (run === 0) await page.selectOption('#trace-run', '0');
    await view(page, 'comm');
    await page.waitForFunction((r) => window.__orreryView?.cells && document.body.dataset.ready
      && new URLSearchParams(window.location.hash.slice(1)).get('tr') === (r ? '1' : null), run, { timeout: 30000 });
    const matrix = await page.evaluate(() => window.__orreryView);
    for (const p of stat(args.orrery, report, 'bytes_sent').processes) {
      const row = matrix.cells.filter((c) => c[0] === p.rank).reduce((a, c) => a + c[2], 0);
      near(row, p.value, `run ${run}: matrix row of rank ${p.rank} is the bytes it sent (its report)`, 1e-9);
    }
    await view(page, 'timeline');
    await timelineDrawn(page, null).catch(() => {});
    check(await page.evaluate(() => window.__orreryTimeline.info.run) === run, `run ${run}: the timeline follows the choice`);
  }
}

async function withoutTrace(page, url) {
  for (const chart of ['util', 'comm']) {
    await page.goto(`${url}#chart=${chart}`);
    await page.waitForSelector('#page .note', { timeout: 20000 });
    const note = await page.$eval('#page .note', (e) => e.textContent);
    check(/trace/.test(note) && /--no-trace/.test(note), `${chart} without a trace says why: ${note}`);
  }
  await page.goto(url);
  await page.waitForSelector('#page[data-findings]', { timeout: 30000 });
  check(await page.$$eval('.finding-item', (l) => l.length) > 0, 'findings without a trace');
}

// The report alone, away from its experiment (no topology records beside it).
const alone = path.join(out, 'alone', 'report.h5');
mkdirSync(path.dirname(alone), { recursive: true });
copyFileSync(args.report, alone);
// ... naming its own directory as its experiment, so nothing leads back to the topology records.
execFileSync('/usr/bin/python3', ['-c', "import h5py, sys; f = h5py.File(sys.argv[1], 'r+'); f.attrs['experiment'] = sys.argv[2]; f.close()",
  alone, path.dirname(alone)]);

const browser = await launchBrowser(args['node-modules']);
const scenarios = [
  [[args.report], [findingsAndFacts, followFinding, honestOverview, treesAndCharts, traceViews, sourcePane, callStack, topology]],
  [[args.report, args.other], [comparison, bothTraces]],
  [[args.report, '--no-trace'], [withoutTrace]],
  [[alone], [noTopology]],
];
try {
  for (const [options, steps] of scenarios) {
    const viewer = await startViewer(args.orrery, options);
    try {
      const page = await openPage(browser);
      let items = null;
      for (const step of steps) {
        try {
          items = (await step(page, viewer.url, items)) ?? items;
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
finish('views', out);
