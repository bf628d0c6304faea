// The timeline: the trace drawn on a canvas, one row per rank, rank labels
// in a gutter on the left (grouped when rows are thin). MPI calls are warm,
// computation cool, late-sender waits red, messages lines from the send to
// the receive, the selected call path's instances a dark band. Wheel zooms
// around the cursor, drag pans, double-click resets; clicking a call selects
// its process and its call path in the trees.
//
// Honest aggregation: the server merges what is shorter than a pixel and
// says how much time each kind took in the merged piece; each kind is drawn
// with the height of its share, and a merged wait with the height of its
// share, so nothing is drawn larger than its time (plus at most one pixel's
// width for what is narrower than a pixel).

import { api } from './api.js';
import { drawRowCurves, RESOURCE_MEASURES } from './resources.js';
import { regionColours } from './palette.js';

const AXIS = 22;          // px for the time axis
const GUTTER = 64;        // px for the rank labels
const MIN_ROW = 3;        // px per rank at the least
const MAX_ROW = 28;
const LABEL_PX = 12;      // labels at least this far apart
const BACKGROUND = '#ffffff';
export const WAIT = '#dc2626';
const MARK = '#111827';
/** Outline of the instances of call paths on the critical path. */
const CRITICAL = '#7c3aed';
const SELECTED_ROW = '#fef3c7';
const MESSAGE = 'rgba(15, 23, 42, 0.55)';
const GREY = '#cbd5e1';

/** A time in seconds, readably (s, ms, µs, ns). */
export function formatTime(seconds) {
  const a = Math.abs(seconds);
  if (a === 0) return '0 s';
  if (a >= 1) return `${seconds.toPrecision(4)} s`;
  if (a >= 1e-3) return `${(seconds * 1e3).toPrecision(4)} ms`;
  if (a >= 1e-6) return `${(seconds * 1e6).toPrecision(4)} µs`;
  return `${(seconds * 1e9).toPrecision(4)} ns`;
}

function formatBytes(bytes) {
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toPrecision(4)} MiB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toPrecision(4)} KiB`;
  return `${bytes} B`;
}

/** A round tick step giving about `count` ticks over `span`. */
function tickStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

/** Ranks per label when rows are `rowHeight` px: 1, 2, 5, 10, 20, 50, ... */
export function rankGroup(rowHeight) {
  const need = Math.ceil(LABEL_PX / Math.max(1e-9, rowHeight));
  for (let power = 1; ; power *= 10) for (const m of [1, 2, 5]) if (m * power >= need) return m * power;
}

export class Timeline {
  /**
   * @param element the panel (emptied and filled here)
   * @param onWindow called with [t0, t1] after every zoom/pan (the URL keeps it)
   * @param onCallpath called with a call-path row when a call is clicked
   * @param onRank called with a rank when any part of its row is clicked
   */
  constructor(element, { onWindow, onCallpath, onRank }) {
    this.element = element;
    this.onWindow = onWindow;
    this.onCallpath = onCallpath;
    this.onRank = onRank ?? (() => {});
    this.info = null;
    this.answer = null;
    this.window = null;
    this.pending = null;
    this.requests = 0;
    this.generation = 0;
    this.callpath = null;      // the call path whose instances are marked
    this.critical = false;     // whether the critical path's call paths are outlined
    this.selectedRank = null;  // the process selected in the process tree
    this.details = new Map();  // "rank:instance" -> the server's answer (hover)
    this.drawnWait = new Map(); // rank -> seconds of red drawn (area / row height), for tests
    this.curveMeasure = 'none';  // the resource curve drawn under each row (resources.js)
    this.curves = null;          // the samples of the window (/api/samples)
    this.drawnCurvePoints = 0;   // for tests
    element.innerHTML = '';
    this.status = document.createElement('div');
    this.status.className = 'timeline-status';
    this.legend = document.createElement('div');
    this.legend.className = 'timeline-legend';
    this.scroller = document.createElement('div');
    this.scroller.className = 'timeline-scroller';
    this.spacer = document.createElement('div');
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'timeline-canvas';
    this.tooltip = document.createElement('div');
    this.tooltip.className = 'timeline-tooltip';
    this.tooltip.hidden = true;
    this.scroller.append(this.canvas, this.spacer);
    element.append(this.status, this.legend, this.scroller, this.tooltip);
    this.wire();
  }

  /** Forgets the trace shown (the other run's is asked for next): load() reads afresh. */
  reset() {
    this.info = null;
    this.answer = null;
    this.window = null;
    this.generation += 1;
    this.details.clear();
    this.drawnWait.clear();
    this.scroller.hidden = false;
    this.legend.hidden = false;
    delete this.element.dataset.drawn;
  }

  /** Draws a resource measure (resources.js RESOURCE_MEASURES id, or 'none') under each row. */
  setCurve(measure) {
    if (measure === this.curveMeasure) return;
    this.curveMeasure = measure;
    this.curves = null;
    if (this.info?.available) this.request();
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
      this.legend.hidden = true;
      this.status.textContent = `No timeline: ${this.info.reason}`;
      return;
    }
    this.element.dataset.available = 'true';
    const colours = regionColours(this.info.regions);
    this.regions = this.info.regions.map((r, i) => ({ ...r, colour: colours[i] }));
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

  /** Marks the instances of a call path (a row of the report), or none (null). */
  setCallpath(callpath) {
    if (callpath === this.callpath) return;
    this.callpath = callpath;
    if (this.info?.available) this.request();
  }

  /** Outlines (or not) the instances of the call paths with critical-path time on their rank. */
  setCritical(on) {
    if (on === this.critical) return;
    this.critical = on;
    if (this.info?.available) this.request();
  }

  /** Highlights a rank's row (null: none) and scrolls it into sight. */
  setSelectedRank(rank) {
    if (rank === this.selectedRank) return;
    this.selectedRank = rank;
    if (!this.info?.available) return;
    if (rank !== null) this.reveal(rank);
    this.draw();
  }

  /** Scrolls so that `rank` is in sight. */
  reveal(rank) {
    const [first, count] = this.visibleRanks();
    if (rank < first || rank >= first + count - 1) {
      this.scroller.scrollTop = Math.max(0, (rank - 1) * this.rowHeight);
    }
  }

  /** Zooms to [t0, t1] widened by a margin, with `rank` in sight (a finding's worst instance). */
  zoomTo(t0, t1, rank) {
    if (!this.info?.available) return;
    const margin = Math.max((t1 - t0) * 0.25, 1e-7);
    const [f0, f1] = this.fullWindow();
    this.window = [Math.max(f0, t0 - margin), Math.min(f1, t1 + margin)];
    if (rank !== undefined && rank !== null) this.reveal(rank);
    this.changed();
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

  /** Width of the time axis in px (the canvas less the rank gutter). */
  plotWidth() { return Math.max(1, this.scroller.clientWidth - GUTTER); }

  /** Seconds per pixel in the current window. */
  pixelTime() { return (this.window[1] - this.window[0]) / this.plotWidth(); }

  xOf(t) {
    const [t0, t1] = this.window;
    return GUTTER + ((t - t0) / (t1 - t0)) * this.plotWidth();
  }

  timeAt(x) {
    const [t0, t1] = this.window;
    return t0 + ((x - GUTTER) / this.plotWidth()) * (t1 - t0);
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
    const params = { t0, t1, width, first_rank: firstRank, ranks };
    if (this.callpath !== null) params.callpath = this.callpath;
    if (this.critical) params.critical = true;
    const curves = this.curveMeasure === 'none' ? null
      : api.samples({ t0, t1, first_rank: firstRank, ranks, points: width })
        .catch((error) => ({ sampled: false, reason: error.message }));
    try {
      const answer = await api.timeline(params);
      const samples = await curves;
      if (mine !== this.generation || this.again) return;
      this.answer = answer;
      this.curves = samples;
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
    const width = this.scroller.clientWidth || 1;
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
    this.status.textContent = `${this.info.warning ? `⚠ ${this.info.warning} · ` : ''}${formatTime(t0)} – ${formatTime(t1)} (${formatTime(t1 - t0)} shown, ${formatTime(this.pixelTime())} per pixel)`
      + `${this.answer?.messages_truncated ? ` · ${this.answer.messages.length} of ${this.answer.message_count} messages drawn` : ''}`
      + this.sourceNote()
      + ' · wheel: zoom · drag: pan · double-click: whole run · click: select process and call path'
      + this.curveNote();
    const answer = this.answer;
    if (answer) this.drawRows(ctx, answer, width, height);
    this.drawnCurvePoints = answer ? drawRowCurves(ctx, this, this.curves, this.curveMeasure) : 0;
    this.drawAxis(ctx, width);
    this.drawGutter(ctx, height);
    if (answer) this.renderLegend(answer);
  }

  /** Where the rows come from when the trace's summary is used (no messages then). */
  sourceNote() {
    const source = this.answer?.source;
    if (!source) {
      delete this.status.dataset.source;
      return '';
    }
    this.status.dataset.source = source.from;
    return source.from === 'summary'
      ? ` · from the trace's summary (bins of ${formatTime(source.bin)}; messages not drawn)`
      : ` · ${source.events_read} events read for this window (messages not drawn)`;
  }

  /** The status line's words about the resource curve under the rows. */
  curveNote() {
    if (this.curveMeasure === 'none' || !this.curves) return '';
    if (!this.curves.sampled) return ` · no resource curve: ${this.curves.reason}`;
    const measure = RESOURCE_MEASURES.find((m) => m.id === this.curveMeasure);
    return ` · curve under each row: ${measure.label} (${measure.unit}; the highest row value at 40 % of the row)`;
  }

  drawRows(ctx, answer, width, height) {
    const rh = this.rowHeight;
    const gap = rh >= 8 ? 1 : 0;
    const inner = rh - 2 * gap;
    const pixel = this.pixelTime();
    this.drawnWait = new Map();
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, AXIS, width - GUTTER, height - AXIS);
    ctx.clip();
    for (const row of answer.rows) {
      const y = this.rowY(row.rank);
      if (y + rh < AXIS || y > height) continue;
      if (row.rank === this.selectedRank) {
        ctx.fillStyle = SELECTED_ROW;
        ctx.fillRect(GUTTER, y, width - GUTTER, rh);
      }
      for (const span of row.spans) {
        const [b, e, region, , , , parts] = span;
        const x0 = this.xOf(b);
        const x1 = this.xOf(e);
        if (x1 < GUTTER || x0 > width) continue;
        const w = Math.max(1, x1 - x0);
        if (!parts) {
          ctx.fillStyle = this.regions[region]?.colour ?? GREY;
          ctx.fillRect(x0, y + gap, w, inner);
          continue;
        }
        // Merged: each kind stacked from the bottom with the height of its share.
        const extent = Math.max(e - b, pixel);
        let bottom = y + gap + inner;
        for (const [partRegion, time] of parts) {
          const h = inner * Math.min(1, time / extent);
          ctx.fillStyle = this.regions[partRegion]?.colour ?? GREY;
          ctx.fillRect(x0, bottom - h, w, h);
          bottom -= h;
        }
      }
      // Waits from the top, each with the height of its share of what it covers.
      ctx.fillStyle = WAIT;
      let red = 0;
      for (const [b, e, total] of row.waits) {
        const x0 = this.xOf(b);
        const w = Math.max(1, this.xOf(e) - x0);
        const covered = w * pixel;
        const share = Math.min(1, total / covered);
        ctx.fillRect(x0, y + gap, w, inner * share);
        red += covered * share;
      }
      this.drawnWait.set(row.rank, red);
      if (row.marks) {
        ctx.fillStyle = MARK;
        const band = Math.max(2, Math.round(rh / 4));
        for (const [b, e, total] of row.marks) {
          const x0 = this.xOf(b);
          const w = Math.max(1, this.xOf(e) - x0);
          ctx.globalAlpha = Math.max(0.35, Math.min(1, total / (w * pixel)));
          ctx.fillRect(x0, y + rh - band, w, band);
        }
        ctx.globalAlpha = 1;
      }
      if (row.critical) {
        ctx.strokeStyle = CRITICAL;
        ctx.lineWidth = 1.5;
        for (const [b, e] of row.critical) {
          const x0 = this.xOf(b);
          ctx.strokeRect(x0 + 0.75, y + gap + 0.75, Math.max(1, this.xOf(e) - x0 - 1.5), Math.max(1, inner - 1.5));
        }
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
    ctx.restore();
  }

  /** Rank labels: every rank when rows are tall enough, else one per group ("8–15"). */
  drawGutter(ctx, height) {
    ctx.fillStyle = '#f8fafc';
    ctx.fillRect(0, 0, GUTTER, height);
    ctx.strokeStyle = '#cbd5e1';
    ctx.beginPath();
    ctx.moveTo(GUTTER - 0.5, 0);
    ctx.lineTo(GUTTER - 0.5, height);
    ctx.stroke();
    if (!this.info?.available) return;
    const rh = this.rowHeight;
    const group = rankGroup(rh);
    const [first, count] = this.visibleRanks();
    const labels = [];
    ctx.font = '10px system-ui, sans-serif';
    for (let r = Math.floor(first / group) * group; r < first + count; r += group) {
      const y = this.rowY(r);
      if (y + rh < AXIS) continue;
      const last = Math.min(this.rankCount, r + group) - 1;
      const text = group === 1 ? (this.info.ranks[r] ?? `rank ${r}`) : `${r}–${last}`;
      ctx.fillStyle = '#94a3b8';
      ctx.fillRect(GUTTER - 5, Math.max(AXIS, y), 4, 1);
      ctx.fillStyle = 'rgba(15, 23, 42, 0.8)';
      ctx.fillText(text, 4, Math.max(AXIS + 10, y + Math.min(rh - 1, 10)));
      labels.push(text);
    }
    if (this.selectedRank !== null && group > 1) {
      const y = this.rowY(this.selectedRank);
      if (y >= AXIS && y < height) {
        ctx.fillStyle = '#b45309';
        ctx.fillText(`▸ ${this.selectedRank}`, 4, y + rh);
      }
    }
    this.element.dataset.rankLabels = labels.join('|');
    ctx.fillStyle = '#475569';
    ctx.fillText(group === 1 ? 'ranks' : `ranks/${group}`, 4, 12);
  }

  drawAxis(ctx, width) {
    const [t0, t1] = this.window;
    ctx.fillStyle = '#f8fafc';
    ctx.fillRect(GUTTER, 0, width - GUTTER, AXIS);
    ctx.strokeStyle = '#cbd5e1';
    ctx.fillStyle = '#475569';
    ctx.font = '10px system-ui, sans-serif';
    const step = tickStep(t1 - t0, Math.max(2, Math.floor(this.plotWidth() / 110)));
    ctx.beginPath();
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const x = Math.round(this.xOf(t)) + 0.5;
      ctx.moveTo(x, AXIS - 6);
      ctx.lineTo(x, AXIS);
      ctx.fillText(formatTime(t), x + 2, 11);
    }
    ctx.moveTo(GUTTER, AXIS - 0.5);
    ctx.lineTo(width, AXIS - 0.5);
    ctx.stroke();
  }

  /** The legend: the regions drawn in this window (longest first), waits, marks, messages. */
  renderLegend(answer) {
    const time = new Map();
    for (const row of answer.rows) {
      for (const [b, e, region, , , , parts] of row.spans) {
        for (const [r, t] of parts ?? [[region, e - b]]) time.set(r, (time.get(r) ?? 0) + t);
      }
    }
    const shown = [...time.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14);
    const item = (colour, text, kind) => `<span class="item" data-kind="${kind}"><span class="key" style="background:${colour}"></span>${text}</span>`;
    const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const parts = shown.map(([r]) => item(this.regions[r].colour, escape(this.regions[r].name), this.regions[r].kind));
    parts.push(item(WAIT, 'Late Sender wait', 'wait'));
    if (this.callpath !== null) parts.push(item(MARK, 'selected call path', 'mark'));
    if (this.critical) {
      parts.push(answer.critical_path
        ? `<span class="item" data-kind="critical"><span class="key" style="border:2px solid ${CRITICAL};background:none"></span>on the critical path</span>`
        : '<span class="item muted" data-kind="critical">no critical path in this report</span>');
    }
    parts.push(item(MESSAGE, 'message', 'message'));
    const html = parts.join('');
    if (this.legend.innerHTML !== html) this.legend.innerHTML = html;
  }

  /** What is under a point: {rank, span, wait} or null. */
  hit(x, y) {
    if (!this.answer || y < AXIS || x < GUTTER) return null;
    const [first] = this.visibleRanks();
    const rank = first + Math.floor((y - AXIS) / this.rowHeight);
    const row = this.answer.rows.find((r) => r.rank === rank);
    if (!row) return null;
    const t = this.timeAt(x);
    const slack = this.pixelTime();
    const at = (list) => list.find(([b, e]) => b - slack <= t && t <= e + slack) ?? null;
    return { rank, span: at(row.spans), wait: at(row.waits) };
  }

  /** The hover text; details of a single call come from the server (then the hover is shown again). */
  describe({ rank, span, wait }) {
    if (!span) return '';
    const [b, e, region, instance, busy, count, parts] = span;
    const name = this.regions[region]?.name ?? '?';
    const lines = [this.info.ranks[rank] ?? `rank ${rank}`];
    if (instance >= 0) {
      lines.push(`${name} (${this.regions[region].kind})`, `${formatTime(e - b)} in this window`);
      const key = `${rank}:${instance}`;
      const detail = this.details.get(key);
      if (detail === undefined) {
        this.details.set(key, null);
        api.timelineInstance(rank, instance).then((d) => { this.details.set(key, d); this.refreshHover?.(); },
          () => this.details.delete(key));
      } else if (detail) {
        lines.push(`call ${formatTime(detail.end - detail.begin)}: ${detail.path.join(' › ')}`);
        const describeEnds = (ends, verb, preposition) => {
          if (ends.count === 0) return;
          const peers = ends.list.map(([peer, bytes, tag]) => `${preposition} rank ${peer}, ${formatBytes(bytes)}, tag ${tag}`);
          lines.push(`${verb} ${ends.count} message${ends.count > 1 ? 's' : ''}: ${peers.slice(0, 4).join('; ')}`
            + `${ends.count > 4 ? ' …' : ''}`);
        };
        describeEnds(detail.sends, 'sends', 'to');
        describeEnds(detail.receives, 'receives', 'from');
        if (detail.wait > 0) {
          lines.push(`${detail.wait_kind}: waited ${formatTime(detail.wait)} for rank ${detail.wait_sender}`);
        }
      }
    } else {
      const mix = (parts ?? []).map(([r, t]) => `${this.regions[r]?.kind} ${formatTime(t)}`).join(', ');
      lines.push(`${count} short pieces merged in ${formatTime(e - b)}: ${mix}`, `mostly ${name}, busy ${formatTime(busy)}`);
    }
    if (wait) {
      lines.push(wait[3] > 1 ? `Late Sender waits here: ${formatTime(wait[2])} in ${wait[3]} calls`
        : `Late Sender wait here: ${formatTime(wait[2])}`);
    }
    lines.push('click: select this process and call path');
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
      zoom(event.deltaY < 0 ? 0.8 : 1.25, Math.max(GUTTER, event.offsetX));
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
      if (!found) return;
      this.element.dataset.clickedRank = String(found.rank);
      this.onRank(found.rank);
      const span = found.span;
      if (!span || span[3] < 0) return;
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
      const show = () => {
        const found = this.hit(event.offsetX, event.offsetY);
        const text = found ? this.describe(found) : '';
        this.tooltip.hidden = !text;
        if (text) {
          this.tooltip.textContent = text;
          const box = this.element.getBoundingClientRect();
          this.tooltip.style.left = `${Math.min(event.clientX - box.left + 12, box.width - 340)}px`;
          this.tooltip.style.top = `${event.clientY - box.top + 12}px`;
        }
        canvas.style.cursor = found?.span ? 'pointer' : 'default';
      };
      // The details of a call arrive later: they redraw the latest hover.
      this.refreshHover = show;
      show();
    });
    canvas.addEventListener('mouseleave', () => { this.tooltip.hidden = true; this.refreshHover = null; });
    this.scroller.addEventListener('scroll', () => this.request());
    new ResizeObserver(() => {
      if (!this.info?.available || this.element.offsetParent === null) return;
      this.layout();
      this.request();
    }).observe(this.scroller);
  }

  /** The drawn window as a table: one line per span (merged ones with their kinds' times). */
  csv() {
    const rows = [['rank', 'begin (s)', 'end (s)', 'region', 'kind', 'merged pieces', 'late sender wait in span (s)']];
    for (const row of this.answer?.rows ?? []) {
      for (const [b, e, region, , , count] of row.spans) {
        const wait = row.waits.filter(([wb, we]) => wb < e && we > b).reduce((a, w) => a + w[2], 0);
        rows.push([row.rank, b, e, this.regions[region]?.name, this.regions[region]?.kind, count, wait]);
      }
    }
    return rows;
  }

  changed() {
    this.onWindow(this.window);
    this.request();
  }
}
