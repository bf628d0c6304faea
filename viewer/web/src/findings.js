// The landing page: the ranked findings (from the server's finding sources)
// and the runs' facts. Each finding is a link: it selects its metric, call
// path and most affected process in the trees and, when the trace is at
// hand, opens the timeline zoomed to the call path's worst instance there.

import { api } from './api.js';
import { efficiencyHtml } from './efficiency.js';
import { formatTime } from './timeline.js';
import { format, formatPercent } from './values.js';

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const number = (v) => (v === null || v === undefined ? null : Number(v).toLocaleString('en-US'));

/** Rows of the facts table: [label, value per run]; null values read "not recorded". */
function factRows(runs, trace) {
  const rows = [
    ['Command', (r) => r.command],
    ['Ranks', (r) => r.ranks ?? r.processes],
    ['Processes in the report', (r) => r.processes],
    ['Hosts', (r) => (Array.isArray(r.hosts) ? r.hosts.join(', ') : r.hosts)],
    ['Started', (r) => r.start],
    ['Run time (orrery run)', (r) => (r.duration === null || r.duration === undefined ? null : formatTime(r.duration))],
    ['Events', (r) => number(r.events)],
    ['Trace bytes', (r) => (r.bytes === null || r.bytes === undefined ? null : format('abs', r.bytes, 'bytes'))],
    ['Buffer flushes', (r) => number(r.flushes)],
    ['Lost events', (r) => number(r.lost_events)],
    ['Clock corrections', (r) => number(r.clock_corrections)],
    ['Call paths', (r) => number(r.callpaths)],
    ['Report', (r) => `${r.label} · ${r.creator} · ${r.created}`],
  ];
  const out = rows.map(([label, get]) => [label, runs.map((r) => get(r))]);
  if (trace && trace.duration !== undefined) {
    out.splice(6, 0, ['Trace length', [formatTime(trace.duration), ...runs.slice(1).map(() => null)]]);
  }
  return out;
}

export class FindingsPage {
  /**
   * @param element the page's container
   * @param onOpen called with a finding when its link is followed
   */
  constructor(element, { onOpen }) {
    this.element = element;
    this.onOpen = onOpen;
    this.data = null;
    element.addEventListener('click', (event) => {
      const link = event.target.closest('a.finding');
      if (!link) return;
      event.preventDefault();
      this.onOpen(this.data.findings.findings[Number(link.dataset.index)]);
    });
  }

  async load() {
    if (!this.data) {
      const [findings, facts] = await Promise.all([api.findings(), api.facts()]);
      this.data = { findings, facts };
    }
    return this.data;
  }

  /**
   * Renders the page. `model` names metrics, call paths and processes;
   * `linkOf(finding)` gives the hash a finding selects (for "open in new tab").
   */
  async render(model, linkOf, reports) {
    let data;
    if (!this.data) {
      delete this.element.dataset.findings;
      this.element.innerHTML = '<p class="muted">Computing the findings…</p>';
    }
    try {
      data = await this.load();
    } catch (error) {
      if (document.body.dataset.chart !== 'findings') return;
      this.element.innerHTML = `<p class="note">The findings could not be computed: ${escapeHtml(error.message)}</p>`;
      this.element.dataset.findings = 'error';
      return;
    }
    const { findings, facts } = data;
    const list = findings.findings;
    const parts = [efficiencyHtml(facts.runs, reports),
      '<div class="findings-page"><section class="findings"><h3>Findings, largest first</h3>'];
    if (list.length === 0) {
      parts.push('<p class="note">No wait states in this report: the processes did not wait for each other'
        + ' measurably. Look at the per-process time of the call paths for load imbalance.</p>');
    }
    parts.push('<ol>');
    list.forEach((f, i) => {
      const metric = model.metrics.findIndex((m) => m.name === f.metric);
      const where = f.callpath !== null ? model.callpathPath(f.callpath) : 'the whole program';
      const ranks = f.locations.map((l, k) => `${escapeHtml(model.locationName(l))} (${escapeHtml(format('abs', f.location_values[k], f.unit))})`);
      const share = f.share > 0 ? ` · ${formatPercent(100 * f.share)} of the run's time` : '';
      parts.push(`<li class="finding-item" data-metric="${escapeHtml(f.metric)}" data-value="${f.value}">`
        + `<a class="finding" href="${escapeHtml(linkOf(f))}" data-index="${i}">`
        + `<span class="finding-title">${escapeHtml(f.title)}</span>`
        + ` <span class="finding-value">${escapeHtml(format('abs', f.value, f.unit))}</span>${share}</a>`
        + `<div class="finding-where">at <b>${escapeHtml(where)}</b> (${escapeHtml(format('abs', f.callpath_value, f.unit))})`
        + `${ranks.length ? `; most affected: ${ranks.join(', ')}` : ''}</div>`
        + `${f.why ? `<div class="finding-why">${escapeHtml(f.why)}</div>` : ''}`
        + `${f.advice ? `<div class="finding-advice">What to do: ${escapeHtml(f.advice)}</div>` : ''}`
        + `<div class="finding-source">${escapeHtml(f.source)}${metric < 0 ? ' · metric not in this report' : ''}</div></li>`);
    });
    parts.push('</ol>');
    for (const note of findings.notes) parts.push(`<p class="note">${escapeHtml(note)}</p>`);
    parts.push('</section><section class="facts"><h3>The run</h3><table class="facts-table">');
    if (facts.runs.length > 1) {
      parts.push(`<tr><th></th>${reports.map((r) => `<th>${escapeHtml(r)}</th>`).join('')}</tr>`);
    }
    for (const [label, values] of factRows(facts.runs, facts.trace)) {
      parts.push(`<tr data-fact="${escapeHtml(label)}"><th>${escapeHtml(label)}</th>`
        + `${values.map((v) => `<td>${v === null || v === undefined ? '<span class="muted">not recorded</span>' : escapeHtml(v)}</td>`).join('')}</tr>`);
    }
    parts.push('</table>');
    for (const run of facts.runs) {
      if (!run.run_record) parts.push(`<p class="note">${escapeHtml(run.label)}: ${escapeHtml(run.why_no_run_record)}</p>`);
    }
    if (facts.trace?.error) parts.push(`<p class="note">Trace: ${escapeHtml(facts.trace.error)}</p>`);
    parts.push('</section></div>');
    if (document.body.dataset.chart !== 'findings') return;  // the user moved on meanwhile
    this.element.innerHTML = parts.join('');
    this.element.dataset.findings = String(list.length);
  }

  /** CSV of the findings. */
  csv(model) {
    const list = this.data?.findings.findings ?? [];
    return [['finding', 'metric', 'value', 'unit', 'share of run time', 'call path', 'most affected', 'advice'],
      ...list.map((f) => [f.title, f.metric, f.value, f.unit, f.share,
        f.callpath !== null ? model.callpathPath(f.callpath) : '', f.locations.map((l) => model.locationName(l)).join('; '), f.advice])];
  }
}
