// Shared pieces of the viewer's browser tests and benchmark: start
// `orrery view`, launch Debian's chromium through playwright-core (never a
// downloaded browser), run `orrery stat` as the oracle, and small asserts.

import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
  return args;
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function launchBrowser(nodeModules, executablePath = '/usr/bin/chromium') {
  const require = createRequire(path.resolve(nodeModules, 'noop.js'));
  const { chromium } = require('playwright-core');
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/** Starts `orrery view REPORTS... --no-browser` and resolves with {url, stop}. */
export function startViewer(orrery, reports) {
  return new Promise((resolve, reject) => {
    const child = spawn(orrery, ['view', ...reports, '--no-browser'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`orrery view printed no address: ${out}${err}`)); }, 15000);
    child.stdout.on('data', (d) => {
      out += d;
      const match = out.match(/http:\/\/\S+/);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[0], pid: child.pid, stop: () => child.kill('SIGTERM') });
      }
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`orrery view exited (${code}): ${err}`)); });
  });
}

/** `orrery stat REPORT --metric M --top 0 --format json`, parsed. */
export function stat(orrery, report, metric, extra = []) {
  const text = execFileSync(orrery, ['stat', report, '--metric', metric, '--top', '0', '--format', 'json', ...extra],
    { encoding: 'utf8' });
  return JSON.parse(text);
}

export function writeFixture(fixture, out, options) {
  execFileSync(fixture, [out, ...options]);
  return out;
}

let failures = 0;
export function check(condition, message) {
  if (!condition) {
    failures += 1;
    console.error(`FAIL: ${message}`);
  }
}

export function near(actual, expected, message, relative = 1e-9) {
  const ok = Number.isFinite(actual) && Math.abs(actual - expected) <= relative * Math.max(1, Math.abs(expected));
  check(ok, `${message}: page shows ${actual}, expected ${expected}`);
}

export function failed() {
  return failures;
}

export function artifactsDir(dir) {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Values in a tree panel: {id: {shown, mine, theirs, label}} for every visible row. */
export async function treeValues(page, panel) {
  return page.$$eval(`${panel} .row`, (rows) => Object.fromEntries(rows.map((r) => {
    const v = r.querySelector('.value');
    return [r.dataset.id, {
      shown: v.dataset.value === '' ? null : Number(v.dataset.value),
      mine: Number(v.dataset.mine),
      theirs: Number(v.dataset.theirs),
      label: r.querySelector('.label').textContent,
      expanded: r.dataset.expanded === '1',
      text: v.textContent,
    }];
  })));
}

/** Clicks and waits until the page has rendered the consequence. */
export async function act(page, action) {
  const before = await page.evaluate(() => document.body.dataset.ready);
  await action();
  await page.waitForFunction((b) => document.body.dataset.ready !== b && !document.body.dataset.busy, before,
    { timeout: 30000 });
}

/** A page of the usual size whose uncaught errors are test failures. */
export async function openPage(browser, viewport = { width: 1440, height: 900 }) {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', (e) => check(false, `page error: ${e.message}`));
  return page;
}

/** Prints the test's verdict and exits with it (0: every check passed). */
export function finish(name, screenshots) {
  const where = screenshots ? `; screenshots in ${screenshots}` : '';
  console.log(`${name}: ${failed() === 0 ? 'ok' : `${failed()} failures`}${where}`);
  process.exit(failed() === 0 ? 0 : 1);
}

/** Red canvas pixels of one rank's row, in seconds: pixels × time per pixel ÷ row height. */
export function redSeconds(page, rank) {
  return page.evaluate((r) => {
    const t = window.__orreryTimeline;
    const canvas = t.canvas;
    const ratio = window.devicePixelRatio || 1;
    const y0 = Math.round(t.rowY(r) * ratio);
    const h = Math.round(t.rowHeight * ratio);
    const x0 = Math.round(t.xOf(t.window[0]) * ratio);
    const data = canvas.getContext('2d').getImageData(x0, y0, canvas.width - x0, h).data;
    let red = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] === 0xdc && data[i + 1] === 0x26 && data[i + 2] === 0x26) red += 1;
    return (red / (ratio * ratio)) * t.pixelTime() / t.rowHeight;
  }, rank);
}

/** GET /api/<endpoint> with the page's token. */
export async function apiGet(url, endpoint, params = {}) {
  const token = new URL(url).searchParams.get('token');
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const response = await fetch(`${url.split('?')[0]}api/${endpoint}?${query}`, { headers: { 'X-Orrery-Token': token } });
  return response.json();
}
