// One tree panel (metric, call or process tree): rows with a toggle, a
// colour swatch, the value and the name. A collapsed node shows its
// inclusive value, an expanded one its exclusive value (the caller's
// `value(id, expanded)` decides what that means for its tree).

import { colour, format, shown } from './values.js';

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class TreePanel {
  /**
   * @param {HTMLElement} element the panel's list element
   * @param {{onSelect(id), onToggle(id), onInfo?(id)}} handlers
   */
  constructor(element, handlers) {
    this.element = element;
    this.handlers = handlers;
    element.addEventListener('click', (event) => {
      const row = event.target.closest('.row');
      if (!row) return;
      const id = Number(row.dataset.id);
      if (event.target.closest('.toggle')) this.handlers.onToggle(id);
      else if (event.target.closest('.info')) this.handlers.onInfo?.(id);
      else this.handlers.onSelect(id);
    });
    element.addEventListener('keydown', (event) => this.onKey(event));
  }

  onKey(event) {
    const rows = [...this.element.querySelectorAll('.row')];
    const at = rows.findIndex((r) => r.classList.contains('selected'));
    if (at < 0) return;
    const id = Number(rows[at].dataset.id);
    const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
    if (step && rows[at + step]) {
      this.handlers.onSelect(Number(rows[at + step].dataset.id));
    } else if ((event.key === 'ArrowRight' || event.key === 'ArrowLeft' || event.key === 'Enter')
               && rows[at].dataset.leaf !== '1') {
      const expanded = rows[at].dataset.expanded === '1';
      if ((event.key === 'ArrowRight') !== expanded || event.key === 'Enter') this.handlers.onToggle(id);
    } else {
      return;
    }
    event.preventDefault();
  }

  /**
   * model: roots, children(id), label(id), title(id), expanded(id), selected,
   * value(id, expanded) -> {mine, theirs}, unit(id), root(id), selection,
   * mode, sortByValue, visible/match/forced (Sets or null: the filter), info,
   * otherOnly(id) (optional: rows only the other run has, marked)
   */
  render(model) {
    const parts = [];
    const shownOf = (id, expanded) => {
      const v = model.value(id, expanded);
      const selection = typeof model.selection === 'function' ? model.selection(id) : model.selection;
      // null = the server is still computing it: never shown as a number.
      const pending = v.mine === null || v.theirs === null
        || (model.mode === 'root' && model.root(id) === null) || (model.mode === 'sel' && selection === null);
      return { ...v, selection, pending,
        shown: pending ? null : shown(model.mode, v.mine, v.theirs, model.root(id), selection) };
    };
    const visit = (ids, depth) => {
      let items = ids.filter((id) => !model.visible || model.visible.has(id))
        .map((id) => {
          const leaf = model.children(id).length === 0;
          const expanded = !leaf && (model.expanded(id) || Boolean(model.forced?.has(id)));
          return { id, leaf, expanded, value: shownOf(id, expanded) };
        });
      if (model.sortByValue) {
        // Siblings of one unit stay together (in the tree's order of units:
        // time before bytes, say), then the largest first by the value of the
        // node with its subtree: expanding a node does not move it.
        const units = new Map();
        for (const item of items) if (!units.has(model.unit(item.id))) units.set(model.unit(item.id), units.size);
        for (const item of items) {
          item.key = (item.expanded ? shownOf(item.id, false).shown : item.value.shown) ?? -Infinity;
        }
        items = items.sort((a, b) => units.get(model.unit(a.id)) - units.get(model.unit(b.id)) || b.key - a.key);
      }
      for (const item of items) {
        const { id, leaf, expanded, value } = item;
        const classes = ['row'];
        if (id === model.selected) classes.push('selected');
        if (model.match?.has(id)) classes.push('match');
        if (value.pending) classes.push('pending');
        const otherOnly = Boolean(model.otherOnly?.(id));
        if (otherOnly) classes.push('other-only');
        const swatch = value.pending ? 'transparent'
          : colour(model.mode, value.mine, value.theirs, model.root(id), value.selection);
        parts.push(
          `<div class="${classes.join(' ')}" role="treeitem" data-id="${id}" data-leaf="${leaf ? 1 : 0}"`
          + ` data-expanded="${expanded ? 1 : 0}" data-sort-key="${item.key ?? ''}" aria-selected="${id === model.selected}"`
          + (otherOnly ? ' data-other-only="1"' : '')
          + ` style="--depth:${depth}" title="${escapeHtml(model.title(id))}">`
          + `<span class="toggle">${leaf ? '' : expanded ? '▾' : '▸'}</span>`
          + `<span class="swatch" style="background:${swatch}"></span>`
          + `<span class="value" data-value="${value.shown ?? ''}" data-mine="${value.mine}"`
          + ` data-theirs="${value.theirs}">${value.pending ? 'computing…' : escapeHtml(format(model.mode, value.shown, model.unit(id)))}</span>`
          + `<span class="label">${escapeHtml(model.label(id))}</span>`
          + (model.info ? '<button class="info" title="Description and diagnosis" aria-label="About this metric">i</button>' : '')
          + '</div>',
        );
        if (expanded) visit(model.children(id), depth + 1);
      }
    };
    visit(model.roots, 0);
    if (parts.length === 0) parts.push('<div class="empty">Nothing matches.</div>');
    this.element.innerHTML = parts.join('');
  }

  /** Scrolls the selected row into view if it is not. */
  revealSelection() {
    this.element.querySelector('.row.selected')?.scrollIntoView({ block: 'nearest' });
  }
}
