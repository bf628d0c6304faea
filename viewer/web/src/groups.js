// The Groups view (`orrery view --baseline A1 A2 … --candidate B1 B2 …`):
// per metric and call path, each group's mean over its runs with its
// confidence interval drawn as an error bar, the change of the means, the
// p-value of Welch's t-test and the verdict, as `orrery compare
// --baseline/--candidate` computes them; changes that are not significant
// are greyed. Below: every run's recorded command line and parameters.

import { api } from './api.js';
import { formatTime } from './timeline.js';
import { format } from './values.js';

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const BAR = { width: 240, height: 30, pad: 8 };

/** Both groups' means and intervals on one axis: [0 or the lowest bound, the highest]. */
function errorBars(row) {
  const lows = [row.baseline.ci[0], row.candidate.ci[0], 0];
  const highs = [row.baseline.ci[1], row.candidate.ci[1], 0];
  const lo = Math.min(...lows);
  const hi = Math.max(...highs);
  const span = hi - lo || 1;
  const x = (v) => BAR.pad + ((v - lo) / span) * (BAR.width - 2 * BAR.pad);
  const one = (group, y, colour, name) => {
    const [a, b] = group.ci;
    return `<g class="bar-${name}" data-mean="${group.mean}" data-low="${a}" data-high="${b}">`
      + `<title>${name}: mean ${escapeHtml(format('abs', group.mean, row.unit))}, ${escapeHtml(format('abs', a, row.unit))} … ${escapeHtml(format('abs', b, row.unit))}</title>`
      + `<line x1="${x(a)}" x2="${x(b)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"/>`
      + `<line x1="${x(a)}" x2="${x(a)}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>`
      + `<line x1="${x(b)}" x2="${x(b)}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>`
      + `<circle cx="${x(group.mean)}" cy="${y}" r="3.5" fill="${colour}"/></g>`;
  };
  return `<svg class="error-bars" width="${BAR.width}" height="${BAR.height}" viewBox="0 0 ${BAR.width} ${BAR.height}">`
    + `<line x1="${x(0)}" x2="${x(0)}" y1="2" y2="${BAR.height - 2}" stroke="#cbd5e1"/>`
    + `${one(row.baseline, 9, '#2563eb', 'baseline')}${one(row.candidate, 21, '#ea580c', 'candidate')}</svg>`;
}

function changeText(change) {
  if (change === null) return 'new';
  return `${change >= 0 ? '+' : ''}${(100 * change).toFixed(1)} %`;
}

function pText(p) {
  if (p === 0) return '0';
  return p < 1e-3 ? p.toExponential(1) : p.toFixed(3);
}

const meanText = (group, unit) => `${format('abs', group.mean, unit)} ± ${format('abs', (group.ci[1] - group.ci[0]) / 2, unit)}`;

/** The table of the runs: group, report, command line, ranks, hosts, start, run time, parameters. */
function runsTable(summary) {
  const parts = ['<table class="facts-table runs-table"><tr><th>group</th><th>report</th><th>command</th><th>ranks</th>'
    + '<th>hosts</th><th>started</th><th>run time</th><th>parameters</th></tr>'];
  for (const [name, runs] of [['baseline', summary.baseline], ['candidate', summary.candidate]]) {
    for (const run of runs) {
      const params = Object.entries(run.params ?? {}).map(([k, v]) => `${k}=${v}`).join(' ');
      const cell = (v) => (v === null || v === undefined || v === '' ? '<span class="muted">–</span>' : escapeHtml(v));
      parts.push(`<tr class="run-row" data-group="${name}" data-path="${escapeHtml(run.path)}">`
        + `<td>${name}</td><td>${escapeHtml(run.path)}</td>`
        + (run.why_no_record ? `<td colspan="6" class="muted">${escapeHtml(run.why_no_record)}</td>`
          : `<td class="run-command">${cell(run.command)}</td><td>${cell(run.ranks)}</td><td>${cell((run.hosts ?? []).join(', '))}</td>`
            + `<td>${cell(run.start)}</td><td>${cell(run.duration_s === null ? null : formatTime(run.duration_s))}</td>`
            + `<td class="run-params">${cell(params)}</td>`)
        + '</tr>');
    }
  }
  parts.push('</table>');
  return parts.join('');
}

export class GroupsPage {
  /**
   * @param element the page's container
   * @param onSelect called with (metric row, call-path row) when a row is clicked
   */
  constructor(element, { onSelect }) {
    this.element = element;
    this.scope = 'selection';
    this.answer = null;
    element.addEventListener('click', (event) => {
      const row = event.target.closest('tr.group-row');
      if (row) onSelect(Number(row.dataset.metric), Number(row.dataset.callpath));
    });
    element.addEventListener('change', (event) => {
      if (event.target.id !== 'groups-scope') return;
      this.scope = event.target.value;
      this.render(this.last);
    });
  }

  /** Renders the rows of the selected metric under the selected call path (or of everything). */
  async render(context) {
    this.last = context;
    const { model, metric, callpath } = context;
    const all = this.scope === 'all';
    const params = all ? { metric: 'all', under: 'all', top: 100 }
      : { metric, under: callpath === model.allId ? 'all' : callpath, top: 100 };
    let answer;
    try {
      answer = await api.groups(params);
    } catch (error) {
      this.element.innerHTML = `<p class="note">The groups could not be compared: ${escapeHtml(error.message)}</p>`;
      this.element.dataset.groups = 'error';
      return;
    }
    if (document.body.dataset.chart !== 'groups') return;
    this.answer = answer;
    const s = answer.summary;
    const confidence = `${Math.round((1 - s.alpha) * 1000) / 10} %`;
    const metricName = model.metrics[metric].display_name || model.metrics[metric].name;
    const where = all ? 'every metric and call path'
      : `${escapeHtml(metricName)} (with its sub-metrics) at ${escapeHtml(model.callpathPath(callpath))} and the call paths below it`;
    const parts = ['<div class="groups-page">'];
    parts.push(`<p class="groups-head">Baseline: <b>${s.baseline.length} runs</b> · candidate: <b>${s.candidate.length} runs</b>. `
      + `Each group's mean over its runs with its ${confidence} confidence interval (error bars: `
      + '<span class="swatch-baseline">●</span> baseline, <span class="swatch-candidate">●</span> candidate); '
      + `${escapeHtml(s.test)}; <b>significant</b> when p &lt; ${s.alpha} and |change| ≥ ${Math.round(s.min_change * 1000) / 10} %. `
      + 'Changes that are not significant are greyed. Values: per call path (exclusive), summed over a run\'s processes, as <code>orrery compare</code> prints them.</p>');
    if (s.programs.length > 1) {
      parts.push(`<p class="note">The runs are of different programs (${s.programs.map(escapeHtml).join(', ')}).</p>`);
    }
    parts.push(`<p><label>Show <select id="groups-scope"><option value="selection"${all ? '' : ' selected'}>the selected metric under the selected call path</option>`
      + `<option value="all"${all ? ' selected' : ''}>every metric and call path</option></select></label> `
      + `<span class="muted groups-count">${where}: ${answer.matching} compared, ${answer.significant} significant`
      + `${answer.matching > answer.rows.length ? `, the first ${answer.rows.length} shown` : ''}</span></p>`);
    if (answer.rows.length === 0) {
      parts.push('<p class="note">No values here: the metric is zero at these call paths in every run.</p>');
    } else {
      parts.push('<table class="profile-table groups-table"><tr><th>metric</th><th>call path</th><th>baseline</th>'
        + `<th>candidate</th><th>means, ${confidence} CI</th><th>change</th><th>p-value</th><th>significant</th></tr>`);
      for (const r of answer.rows) {
        parts.push(`<tr class="group-row${r.significant ? ' significant' : ' not-significant'}" data-metric="${r.metric}" data-callpath="${r.callpath}"`
          + ` data-significant="${r.significant}" data-p="${r.p_value}" data-change="${r.change ?? ''}"`
          + ` data-baseline="${r.baseline.mean}" data-candidate="${r.candidate.mean}" title="Select this metric and call path">`
          + `<td>${escapeHtml(r.metric_name)}</td><td class="path">${escapeHtml(r.label)}</td>`
          + `<td class="num">${escapeHtml(meanText(r.baseline, r.unit))}</td><td class="num">${escapeHtml(meanText(r.candidate, r.unit))}</td>`
          + `<td>${errorBars(r)}</td><td class="num">${changeText(r.change)}</td><td class="num">${pText(r.p_value)}</td>`
          + `<td>${r.significant ? 'yes' : 'no'}</td></tr>`);
      }
      parts.push('</table>');
    }
    parts.push(`<h3>The runs</h3>${runsTable(s)}</div>`);
    this.element.innerHTML = parts.join('');
    this.element.dataset.groups = String(answer.rows.length);
  }

  /** CSV of the rows shown. */
  csv() {
    const rows = this.answer?.rows ?? [];
    return [['metric', 'callpath', 'baseline_mean', 'baseline_ci_low', 'baseline_ci_high', 'candidate_mean',
      'candidate_ci_low', 'candidate_ci_high', 'change', 'p_value', 'significant'],
    ...rows.map((r) => [r.metric_name, r.label, r.baseline.mean, ...r.baseline.ci, r.candidate.mean, ...r.candidate.ci,
      r.change, r.p_value, r.significant])];
  }
}
