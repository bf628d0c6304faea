// The source pane: the lines of the selected call path's region (its file and
// line as the report records them, when the file is readable where the
// viewer runs), the region's first line marked; a note otherwise.

import { api } from './api.js';

function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class SourcePage {
  constructor(element) {
    this.element = element;
    this.answer = null;
  }

  /** CSV of the lines shown. */
  csv() {
    const a = this.answer;
    return a?.available ? [['line', 'text'], ...a.lines.map((text, i) => [a.first + i, text])] : [['line', 'text']];
  }

  async render(model, callpath) {
    if (callpath === model.allId || callpath >= model.callpathCount) {
      this.element.innerHTML = '<p class="note">Select a call path to see its source.</p>';
      this.element.dataset.source = 'none';
      return;
    }
    let answer;
    try {
      answer = await api.source(callpath);
    } catch (error) {
      answer = { available: false, reason: error.message };
    }
    if (document.body.dataset.chart !== 'source') return;
    this.answer = answer;
    const where = escapeHtml(model.callpathPath(callpath));
    if (!answer.available) {
      this.element.innerHTML = `<h3 class="source-title">${where}</h3><p class="note">No source to show: ${escapeHtml(answer.reason)}</p>`;
      this.element.dataset.source = 'none';
      return;
    }
    const rows = answer.lines.map((text, i) => {
      const number = answer.first + i;
      return `<tr class="${number === answer.line ? 'source-line here' : 'source-line'}" data-line="${number}">`
        + `<td class="source-number">${number}</td><td><pre>${escapeHtml(text)}</pre></td></tr>`;
    });
    this.element.innerHTML = `<h3 class="source-title">${where} <span class="muted">${escapeHtml(answer.path)}:${answer.line}</span></h3>`
      + `<table class="source-table">${rows.join('')}</table>`;
    this.element.dataset.source = String(answer.line);
    this.element.querySelector('.source-line.here')?.scrollIntoView({ block: 'center' });
  }
}
