// Exports of the current view: the chart as PNG or SVG (ECharts draws it
// again with its SVG renderer; the timeline is a canvas, PNG only) and the
// view's table as CSV (RFC 4180 quoting).

/** One CSV line per row; fields with commas, quotes or line breaks are quoted. */
export function toCsv(rows) {
  const field = (v) => {
    const text = v === null || v === undefined ? '' : String(v);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

function download(name, url) {
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
}

/** Downloads the view (`type`: png, svg or csv) as orrery-VIEW.TYPE. */
export function exportView(type, { view, charts, timeline, csv }) {
  const name = `orrery-${view}.${type}`;
  if (type === 'csv') {
    download(name, `data:text/csv;charset=utf-8,${encodeURIComponent(toCsv(csv() ?? []))}`);
  } else if (view === 'timeline') {
    if (type === 'png') download(name, timeline.canvas.toDataURL('image/png'));
  } else if (!['findings', 'profile', 'groups', 'source', 'fgroups'].includes(view)) {
    download(name, charts.image(type));
  }
}
