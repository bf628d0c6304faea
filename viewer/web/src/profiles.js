// Profiles as users of gprof and perf expect them, for the selected metric:
// a flat profile (per region, summed over its call paths), a bottom-up view
// (who calls the selected call path's region, and how much of it each
// caller accounts for) and statistics of call paths across processes.

import { describe } from './stats.js';
import { format, formatPercent } from './values.js';

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Per region: exclusive value summed over its call paths, inclusive over its outermost ones. */
export function flatProfile(model, calls) {
  const byRegion = new Map();
  const regionOf = (c) => model.header.callpaths.region[c];
  for (let c = 0; c < model.callpathCount; ++c) {
    const region = regionOf(c);
    const entry = byRegion.get(region) ?? { region, name: model.callpathLabel(c), exclusive: 0, inclusive: 0, callpaths: 0 };
    entry.exclusive += calls.exclusive[c];
    entry.callpaths += 1;
    // Inclusive: only call paths with no ancestor of the same region (recursion counted once).
    let nested = false;
    for (let p = model.header.callpaths.parent[c]; p >= 0; p = model.header.callpaths.parent[p]) {
      if (regionOf(p) === region) { nested = true; break; }
    }
    if (!nested) entry.inclusive += calls.inclusive[c];
    byRegion.set(region, entry);
  }
  return [...byRegion.values()].sort((a, b) => b.exclusive - a.exclusive || b.inclusive - a.inclusive);
}

/** The callers of a region: per caller path, the inclusive value of the region's call paths under it. */
export function callers(model, calls, region) {
  const rows = new Map();
  for (let c = 0; c < model.callpathCount; ++c) {
    if (model.header.callpaths.region[c] !== region) continue;
    const parent = model.header.callpaths.parent[c];
    const caller = parent >= 0 ? model.callpathPath(parent) : '(a root)';
    const entry = rows.get(caller) ?? { caller, callpaths: [], inclusive: 0, exclusive: 0 };
    entry.callpaths.push(c);
    entry.inclusive += calls.inclusive[c];
    entry.exclusive += calls.exclusive[c];
    rows.set(caller, entry);
  }
  return [...rows.values()].sort((a, b) => b.inclusive - a.inclusive);
}

function table(id, head, rows, format) {
  return `<table class="profile-table" id="${id}"><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>`
    + `<tbody>${rows.map((r) => `<tr${r.attrs ?? ''}>${format(r).map((v) => `<td>${v}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

export class ProfilePage {
  constructor(element, { onCallpath }) {
    this.element = element;
    this.onCallpath = onCallpath;
    this.tables = {};
    element.addEventListener('click', (event) => {
      const row = event.target.closest('tr[data-callpath]');
      if (row) this.onCallpath(Number(row.dataset.callpath));
    });
  }

  /**
   * calls: the call tree's values ({exclusive, inclusive}); statRows: [{label,
   * callpath, values (per process)}] for the statistics; unit and the metric's name.
   */
  render({ model, calls, selectedCallpath, statRows, unit, metricName, total }) {
    const f = (v) => escapeHtml(format('abs', v, unit));
    const pct = (v) => (total > 0 ? escapeHtml(formatPercent((100 * v) / total)) : '—');
    const flat = flatProfile(model, calls).filter((r) => r.exclusive !== 0 || r.inclusive !== 0);
    const parts = [`<div class="profile-page"><section><h3>Flat profile · ${escapeHtml(metricName)}</h3>`];
    parts.push(table('flat-profile', ['region', 'exclusive', '% of total', 'inclusive', 'call paths'], flat.slice(0, 200),
      (r) => [escapeHtml(r.name), f(r.exclusive), pct(r.exclusive), f(r.inclusive), r.callpaths]));
    this.tables.flat = [['region', 'exclusive', 'inclusive', 'call paths'], ...flat.map((r) => [r.name, r.exclusive, r.inclusive, r.callpaths])];
    parts.push('</section>');

    const callpath = selectedCallpath !== null && selectedCallpath < model.callpathCount ? selectedCallpath : null;
    parts.push('<section><h3>Bottom-up: callers of ');
    if (callpath === null) {
      parts.push('…</h3><p class="note">Select a call path to see who calls its region.</p>');
      this.tables.callers = [['caller', 'inclusive', 'exclusive']];
    } else {
      const region = model.header.callpaths.region[callpath];
      const list = callers(model, calls, region);
      parts.push(`${escapeHtml(model.callpathLabel(callpath))}</h3>`);
      parts.push(table('bottom-up', ['caller', 'inclusive', 'exclusive', 'call paths'], list.map((r) => ({ ...r,
        attrs: ` data-callpath="${r.callpaths[0]}"` })),
      (r) => [escapeHtml(r.caller), f(r.inclusive), f(r.exclusive), r.callpaths.length]));
      this.tables.callers = [['caller', 'inclusive', 'exclusive'], ...list.map((r) => [r.caller, r.inclusive, r.exclusive])];
    }
    parts.push('</section><section><h3>Across processes</h3>');
    const stats = statRows.map((r) => ({ ...r, stats: describe(r.values) }));
    parts.push(table('process-stats', ['call path', 'min', 'q1', 'median', 'q3', 'max', 'mean', 'stddev'],
      stats.map((r) => ({ ...r, attrs: ` data-callpath="${r.callpath}"` })),
      (r) => [escapeHtml(r.label), ...['min', 'q1', 'median', 'q3', 'max', 'mean', 'stddev'].map((k) => `<span data-stat="${k}" data-raw="${r.stats[k]}">${f(r.stats[k])}</span>`)]));
    this.tables.stats = [['call path', 'min', 'q1', 'median', 'q3', 'max', 'mean', 'stddev'],
      ...stats.map((r) => [r.label, r.stats.min, r.stats.q1, r.stats.median, r.stats.q3, r.stats.max, r.stats.mean, r.stats.stddev])];
    parts.push('</section></div>');
    this.element.innerHTML = parts.join('');
    return stats;
  }

  /** All three tables in one CSV, separated by a blank line. */
  csv() {
    return [['flat profile'], ...this.tables.flat, [], ['callers'], ...this.tables.callers, [], ['across processes'], ...this.tables.stats];
  }
}
