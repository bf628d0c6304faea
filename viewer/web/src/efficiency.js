// The POP efficiencies of each run (the report's `/efficiency`) as a row of
// bars on the findings page, and a what-if report's prediction. A run
// without the table shows nothing here.

import { formatTime } from './timeline.js';

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Readable names of the efficiencies of docs/design.md §5 (others keep their own). */
const TITLES = {
  parallel_efficiency: 'Parallel efficiency',
  load_balance: 'Load balance',
  communication_efficiency: 'Communication efficiency',
  serialisation_efficiency: 'Serialisation efficiency',
  transfer_efficiency: 'Transfer efficiency',
};

/** POP's reading: 80 % and above is good, below 60 % needs attention. */
function grade(value) {
  if (value >= 0.8) return 'good';
  return value >= 0.6 ? 'fair' : 'poor';
}

function gauge(e) {
  const percent = Math.max(0, Math.min(1, e.value)) * 100;
  return `<div class="gauge gauge-${grade(e.value)}" data-efficiency="${escapeHtml(e.name)}" data-value="${e.value}"`
    + ` title="${escapeHtml(e.description)}">`
    + `<span class="gauge-name">${escapeHtml(TITLES[e.name] ?? e.name)}</span>`
    + `<span class="gauge-bar"><span style="width:${percent.toFixed(1)}%"></span></span>`
    + `<span class="gauge-value">${(100 * e.value).toFixed(1)} %</span></div>`;
}

/** The efficiency section for the runs' facts (`labels`: the reports' names), or '' if no run has any. */
export function efficiencyHtml(runs, labels) {
  const parts = [];
  runs.forEach((run, i) => {
    const head = runs.length > 1 ? `<span class="efficiency-run">${escapeHtml(labels[i])}</span>` : '';
    if (run.what_if) {
      parts.push(`<p class="prediction" data-run="${i}" data-model="${escapeHtml(run.what_if)}" data-predicted="${run.predicted_runtime}">`
        + `${head}Predicted run on <b>${escapeHtml(run.what_if)}</b>: ${escapeHtml(formatTime(run.predicted_runtime))}`
        + ' <span class="muted">(what-if replay of the trace on a modelled machine)</span></p>');
    }
    if (run.efficiency_error) parts.push(`<p class="note">${head}Efficiencies: ${escapeHtml(run.efficiency_error)}</p>`);
    if (!run.efficiency) return;
    parts.push(`<div class="efficiency-row" data-run="${i}">${head}${run.efficiency.map(gauge).join('')}</div>`);
  });
  if (parts.length === 0) return '';
  return '<section class="efficiency"><h3>Efficiency (POP)</h3>'
    + '<p class="muted efficiency-help">Each bar is 100 % for a perfect run; hover for its meaning. '
    + 'Parallel efficiency = load balance × communication efficiency.</p>'
    + `${parts.join('')}</section>`;
}
