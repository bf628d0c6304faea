// The timeline: the trace drawn on a canvas, one row per rank. MPI calls are
// warm, computation cool, late-sender waits red, messages lines from the
// send to the receive. Wheel zooms around the cursor, drag pans, double-click
// resets; clicking an MPI call selects its call path in the call tree.
// The server merges what is shorter than a pixel, so an answer's size is
// bounded by ranks × width whatever the trace's size.

import { api } from './api.js';

const AXIS = 22;          // px for the time axis
const MIN_ROW = 3;        // px per rank at the least
const MAX_ROW = 28;
const BACKGROUND = '#ffffff';
const WAIT = '#dc2626';
const MESSAGE = 'rgba(15, 23, 42, 0.55)';
const WARM = ['#f59e0b', '#fb923c', '#f97316', '#fbbf24', '#ea580c', '#fdba74'];
const COOL = ['#60a5fa', '#2dd4bf', '#818cf8', '#38bdf8', '#34d399', '#a5b4fc', '#22d3ee', '#93c5fd'];
const GREY = '#cbd5e1';

function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; ++i) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A time in seconds, readably (s, ms, µs, ns). */
export function formatTime(seconds) {
  const a = Math.abs(seconds);
  if (a === 0) return '0 s';
  if (a >= 1) return `${seconds.toPrecision(4)} s`;
  if (a >= 1e-3) return `${(seconds * 1e3).toPrecision(4)} ms`;
  if (a >= 1e-6) return `${(seconds * 1e6).toPrecision(4)} µs`;
  return `${(seconds * 1e9).toPrecision(4)} ns`;
}

/** A round tick step giving about `count` ticks over `span`. */
function tickStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

export class Timeline {
  /**
   * @param element the panel (emptied and filled here)
   * @param onWindow called with [t0, t1] after every zoom/pan (the URL keeps it)
   * @param onCallpath called with a call-path row when an MPI call is clicked
   */
  constructor(element, { onWindow, onCallpath }) {
    this.element = element;
    this.onWindow = onWindow;
    this.onCallpath = onCallpath;
    this.info = null;
    this.answer = null;
    this.window = null;
    this.pending = null;
    this.requests = 0;
    this.generation = 0;
    element.innerHTML = '';
    this.status = document.createElement('div');
    this.status.className = 'timeline-status';
    this.scroller = document.createElement('div');
    this.scroller.className = 'timeline-scroller';
    this.spacer = document.createElement('div');
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'timeline-canvas';
    this.tooltip = document.createElement('div');
    this.tooltip.className = 'timeline-tooltip';
    this.tooltip.hidden = true;
    this.scroller.append(this.canvas, this.spacer);
    element.append(this.status, this.scroller, this.tooltip);
    this.wire();
  }

  /** Reads what the server has; shows why there is no timeline if it has none. */
  async load(initialWindow) {
    try {
      this.info = await api.timelineInfo();
    } catch (error) {
      this.info = { available: false, reason: error.message };
    }
    if (!this.info.available) {
      this.element.dataset.available = 'false';
      this.scroller.hidden = true;
      this.status.textContent = `No timeline: ${this.info.reason}`;
      return;
    }
    this.element.dataset.available = 'true';
    this.regions = this.info.regions.map((r) => ({
      ...r,
      colour: r.kind === 'mpi' ? WARM[hash(r.name) % WARM.length]
        : r.kind === 'measurement' ? GREY : COOL[hash(r.name) % COOL.length],
    }));
    this.window = initialWindow ?? this.fullWindow();
    this.layout();
    this.request();
  }

  fullWindow() {
    return [0, this.info.duration > 0 ? this.info.duration : 1];
  }

  /** Sets the window (e.g. from the URL) and asks for it. */
  setWindow(window) {
    if (!this.info?.available) return;
    this.window = window ?? this.fullWindow();
    this.request();
  }

  get rankCount() { return this.info?.ranks.length ?? 0; }

  layout() {
    const height = Math.max(60, this.scroller.clientHeight);
    this.rowHeight = Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor((height - AXIS) / Math.max(1, this.rankCount))));
    this.spacer.style.height = `${Math.max(0, AXIS + this.rowHeight * this.rankCount - height)}px`;
  }

  /** The ranks the canvas shows at the current scroll position. */
  visibleRanks() {
    const first = Math.min(this.rankCount - 1, Math.floor(this.scroller.scrollTop / this.rowHeight));
    const rows = Math.ceil((this.scroller.clientHeight - AXIS) / this.rowHeight) + 1;
    return [Math.max(0, first), Math.max(1, Math.min(rows, this.rankCount - first))];
  }

  plotWidth() { return Math.max(1, this.scroller.clientWidth); }

  xOf(t) {
    const [t0, t1] = this.window;
    return ((t - t0) / (t1 - t0)) * this.plotWidth();
  }

  timeAt(x) {
    const [t0, t1] = this.window;
    return t0 + (x / this.plotWidth()) * (t1 - t0);
  }

  rowY(rank) {
    const [first] = this.visibleRanks();
    return AXIS + (rank - first) * this.rowHeight;
  }

  /** Asks the server for the window (the latest request wins). */
  request() {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.fetch(), 30);
    this.draw();
  }

  async fetch() {
    // One request at a time: while the server reads a large trace, newer
    // windows wait here (the latest wins) instead of holding server threads.
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    try {
      await this.fetchOnce();
    } finally {
      this.inFlight = false;
    }
    if (this.again) {
      this.again = false;
      this.fetch();
    }
  }

  async fetchOnce() {
    const mine = ++this.generation;
    const [firstRank, ranks] = this.visibleRanks();
    const [t0, t1] = this.window;
    const width = Math.round(this.plotWidth());
    this.requests += 1;
    this.element.dataset.requests = String(this.requests);
    this.element.dataset.busy = '1';
    try {
      const answer = await api.timeline({ t0, t1, width, first_rank: firstRank, ranks });
      if (mine !== this.generation || this.again) return;
      this.answer = answer;
      delete this.element.dataset.busy;
      this.draw();
      this.element.dataset.drawn = String(this.generation);
    } catch (error) {
      if (mine !== this.generation || this.again) return;
      delete this.element.dataset.busy;
      this.status.textContent = `Timeline: ${error.message}`;
    }
  }

  draw() {
    const canvas = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    const width = this.plotWidth();
    const height = Math.max(60, this.scroller.clientHeight);
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    const ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(0, 0, width, height);
    if (!this.window) return;
    const [t0, t1] = this.window;
    this.status.textContent = `${formatTime(t0)} – ${formatTime(t1)} (${formatTime(t1 - t0)} shown)`
      + `${this.answer?.messages_truncated ? ` · ${this.answer.messages.length} of ${this.answer.message_count} messages drawn` : ''}`
      + ' · wheel: zoom · drag: pan · double-click: whole run · click an MPI call: select its call path';
    this.drawAxis(ctx, width);
    const answer = this.answer;
    if (!answer) return;
    const rh = this.rowHeight;
    const gap = rh >= 8 ? 1 : 0;
    const label = rh >= 12;
    for (const row of answer.rows) {
      const y = this.rowY(row.rank);
      if (y + rh < AXIS || y > height) continue;
      for (const [b, e, region] of row.spans) {
        const x0 = this.xOf(b);
        const x1 = this.xOf(e);
        if (x1 < 0 || x0 > width) continue;
        ctx.fillStyle = this.regions[region]?.colour ?? GREY;
        ctx.fillRect(x0, y + gap, Math.max(1, x1 - x0), rh - 2 * gap);
      }
      ctx.fillStyle = WAIT;
      for (const [b, e] of row.waits) {
        const x0 = this.xOf(b);
        ctx.fillRect(x0, y + gap, Math.max(1, this.xOf(e) - x0), rh - 2 * gap);
      }
      if (label) {
        ctx.fillStyle = 'rgba(15, 23, 42, 0.75)';
        ctx.font = '10px system-ui, sans-serif';
        ctx.fillText(this.info.ranks[row.rank], 3, y + Math.min(rh - 2, 11));
      }
    }
    ctx.strokeStyle = MESSAGE;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const [sender, send, receiver, receive] of answer.messages) {
      ctx.moveTo(this.xOf(send), this.rowY(sender) + rh / 2);
      ctx.lineTo(this.xOf(receive), this.rowY(receiver) + rh / 2);
    }
    ctx.stroke();
  }

  drawAxis(ctx, width) {
    const [t0, t1] = this.window;
    ctx.fillStyle = '#f8fafc';
    ctx.fillRect(0, 0, width, AXIS);
    ctx.strokeStyle = '#cbd5e1';
    ctx.fillStyle = '#475569';
    ctx.font = '10px system-ui, sans-serif';
    const step = tickStep(t1 - t0, Math.max(2, Math.floor(width / 110)));
    ctx.beginPath();
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const x = Math.round(this.xOf(t)) + 0.5;
      ctx.moveTo(x, AXIS - 6);
      ctx.lineTo(x, AXIS);
      ctx.fillText(formatTime(t), x + 2, 11);
    }
    ctx.moveTo(0, AXIS - 0.5);
    ctx.lineTo(width, AXIS - 0.5);
    ctx.stroke();
  }

  /** The span under a point: {rank, span, wait} or null. */
  hit(x, y) {
    if (!this.answer || y < AXIS) return null;
    const [first] = this.visibleRanks();
    const rank = first + Math.floor((y - AXIS) / this.rowHeight);
    const row = this.answer.rows.find((r) => r.rank === rank);
    if (!row) return null;
    const t = this.timeAt(x);
    const slack = (this.window[1] - this.window[0]) / this.plotWidth();  // one pixel
    const at = (list) => list.find(([b, e]) => b - slack <= t && t <= e + slack) ?? null;
    return { rank, span: at(row.spans), wait: at(row.waits) };
  }

  describe({ rank, span, wait }) {
    if (!span) return '';
    const [b, e, region, instance, busy, count] = span;
    const name = this.regions[region]?.name ?? '?';
    const lines = [this.info.ranks[rank]];
    if (instance >= 0) {
      lines.push(`${name} (${this.regions[region].kind})`, `duration ${formatTime(e - b)} in this window`);
    } else {
      lines.push(`${count} short pieces merged, mostly ${name}`, `busy ${formatTime(busy)} of ${formatTime(e - b)}`);
    }
    if (wait) lines.push(`late-sender wait ${formatTime(wait[2])}`);
    if (instance >= 0 && this.regions[region].kind === 'mpi') lines.push('click: select its call path');
    return lines.join('\n');
  }

  wire() {
    const canvas = this.canvas;
    const zoom = (factor, x) => {
      const [t0, t1] = this.window;
      const full = this.fullWindow();
      const tc = this.timeAt(x);
      let n0 = tc - (tc - t0) * factor;
      let n1 = tc + (t1 - tc) * factor;
      if (n1 - n0 < 1e-8) return;  // 10 ns is as close as it gets
      const span = full[1] - full[0];
      if (n1 - n0 > span) { n0 = full[0]; n1 = full[1]; }
      this.window = [n0, n1];
      this.changed();
    };
    canvas.addEventListener('wheel', (event) => {
      if (!this.window) return;
      if (event.shiftKey) return;  // shift+wheel scrolls the ranks
      event.preventDefault();
      zoom(event.deltaY < 0 ? 0.8 : 1.25, event.offsetX);
    }, { passive: false });
    let drag = null;
    canvas.addEventListener('mousedown', (event) => {
      if (!this.window) return;
      this.suppressClick = false;
      drag = { x: event.clientX, window: [...this.window], moved: false };
    });
    window.addEventListener('mousemove', (event) => {
      if (!drag) return;
      const dx = event.clientX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      if (!drag.moved) return;
      const dt = (dx / this.plotWidth()) * (drag.window[1] - drag.window[0]);
      this.window = [drag.window[0] - dt, drag.window[1] - dt];
      this.draw();
    });
    window.addEventListener('mouseup', () => {
      if (drag?.moved) {
        this.suppressClick = true;
        this.changed();
      }
      drag = null;
    });
    canvas.addEventListener('dblclick', () => {
      if (!this.window) return;
      this.window = this.fullWindow();
      this.changed();
    });
    canvas.addEventListener('click', async (event) => {
      if (this.suppressClick) { this.suppressClick = false; return; }
      const found = this.hit(event.offsetX, event.offsetY);
      const span = found?.span;
      if (!span || span[3] < 0 || this.regions[span[2]]?.kind !== 'mpi') return;
      try {
        const instance = await api.timelineInstance(found.rank, span[3]);
        this.element.dataset.clicked = instance.name;
        if (instance.callpath !== null) this.onCallpath(instance.callpath);
        else this.status.textContent = `${instance.path.join(' › ')} is not in the report's call tree.`;
      } catch (error) {
        this.status.textContent = `Timeline: ${error.message}`;
      }
    });
    canvas.addEventListener('mousemove', (event) => {
      const found = this.hit(event.offsetX, event.offsetY);
      const text = found ? this.describe(found) : '';
      this.tooltip.hidden = !text;
      if (text) {
        this.tooltip.textContent = text;
        const box = this.element.getBoundingClientRect();
        this.tooltip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 240)}px`;
        this.tooltip.style.top = `${event.clientY - box.top + 12}px`;
      }
      canvas.style.cursor = found?.span && found.span[3] >= 0 && this.regions[found.span[2]]?.kind === 'mpi'
        ? 'pointer' : 'default';
    });
    canvas.addEventListener('mouseleave', () => { this.tooltip.hidden = true; });
    this.scroller.addEventListener('scroll', () => this.request());
    new ResizeObserver(() => {
      if (!this.info?.available || this.element.offsetParent === null) return;
      this.layout();
      this.request();
    }).observe(this.scroller);
  }

  changed() {
    this.onWindow(this.window);
    this.request();
  }
}
