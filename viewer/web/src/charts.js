// The charts for the current selection, all drawn by ECharts: per-process
// bars, a process x call-path heat map and a radar (Kiviat) of per-process
// shares.

import * as echarts from 'echarts/core';
import { BarChart, BoxplotChart, CustomChart, HeatmapChart, LineChart, RadarChart } from 'echarts/charts';
import {
  DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, RadarComponent,
  TitleComponent, TooltipComponent, VisualMapComponent,
} from 'echarts/components';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';
import { format, legendColours } from './values.js';

echarts.use([BarChart, BoxplotChart, CustomChart, HeatmapChart, LineChart, RadarChart, DataZoomComponent, GridComponent,
  LegendComponent, MarkLineComponent, RadarComponent, TitleComponent, TooltipComponent, VisualMapComponent,
  CanvasRenderer, SVGRenderer]);

const RADAR_AXES = 24;
const TEXT = '#334155';
const NOTHING = 'Nothing to show: the selection is zero everywhere.';

function titleOf(text, empty) {
  return { text, subtext: empty ? NOTHING : '', left: 8, top: 4, textStyle: { fontSize: 13, color: TEXT },
    subtextStyle: { color: '#94a3b8' } };
}

export class Charts {
  constructor(element) {
    this.element = element;
    this.chart = echarts.init(element, null, { renderer: 'canvas' });
    new ResizeObserver(() => this.chart.resize()).observe(element);
  }

  /** Shows a prepared option (the views of views.js); `csvRows` is what "CSV" exports. */
  show(option, csvRows) {
    this.csvRows = csvRows;
    this.chart.setOption({ animation: false, ...option }, { notMerge: true });
  }

  /** The chart as an image: a data URL of a PNG, or of an SVG drawn again by the SVG renderer. */
  image(type) {
    if (type === 'png') return this.chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' });
    const box = document.createElement('div');
    box.style.cssText = `position:fixed;left:-10000px;top:0;width:${this.element.clientWidth}px;height:${this.element.clientHeight}px`;
    document.body.append(box);
    const copy = echarts.init(box, null, { renderer: 'svg' });
    try {
      copy.setOption({ ...this.chart.getOption(), animation: false });
      return copy.getDataURL({ type: 'svg', backgroundColor: '#fff' });
    } finally {
      copy.dispose();
      box.remove();
    }
  }

  /** How many heat-map rows fit with readable labels (about 14 px each). */
  heatmapRows() {
    return Math.max(5, Math.min(20, Math.floor((this.element.clientHeight - 90) / 14)));
  }

  /** Per-process values of the selection, in the current mode (null where undefined). */
  bars({ names, shownValues, mode, unit, otherValues, reports, title, selected }) {
    const finite = shownValues.filter((v) => v !== null);
    const mean = finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : 0;
    const many = names.length > 64;
    this.mean = mean;
    this.csvRows = [['process', title], ...names.map((n, i) => [n, shownValues[i]])];
    const series = [{
      name: reports[0], type: 'bar', itemStyle: { color: '#3b82f6' },
      // The process selected in the process tree stands out.
      data: shownValues.map((v, i) => (i === selected ? { value: v, itemStyle: { color: '#f59e0b' } } : v)),
      // precision: ECharts rounds a mark line's value to 2 decimals by default
      // (54.49 ms was drawn at 50 ms, 387 µs at 0).
      markLine: { symbol: 'none', precision: 15, data: [{ yAxis: mean, name: 'mean' }],
        label: { position: 'insideEndTop', formatter: () => `mean ${format(mode, mean, unit)}` }, lineStyle: { color: '#ef4444' } },
      large: names.length > 5000,
    }];
    if (otherValues) series.push({ name: reports[1], type: 'bar', data: otherValues, itemStyle: { color: '#94a3b8' } });
    this.chart.setOption({
      animation: false,
      title: titleOf(title, shownValues.every((v) => !v)),
      tooltip: { trigger: 'axis', valueFormatter: (v) => format(mode, v, unit) },
      legend: otherValues ? { top: 4, right: 8 } : undefined,
      grid: { left: 70, right: 24, top: 40, bottom: many ? 60 : 40 },
      // Overlap checks and the zoom slider's data shadow cost more than the
      // bars themselves with ~1,000 processes; automatic label intervals suffice.
      xAxis: { type: 'category', data: names, axisLabel: { color: TEXT, hideOverlap: !many } },
      yAxis: { type: 'value', axisLabel: { color: TEXT, formatter: (v) => format(mode, v, unit) } },
      dataZoom: many ? [{ type: 'slider', bottom: 8, showDataShadow: false }, { type: 'inside' }] : [],
      series,
    }, { notMerge: true });
  }

  /**
   * Call paths (rows) x processes (columns), exclusive values: absolute, or
   * with the other run's rows (`otherRows`) this run − other ('diff') or
   * this run / other in % ('other'; cells where the other run has 0 stay empty).
   */
  heatmap({ names, callpathNames, rows, otherRows = null, mode = 'abs', unit, title }) {
    const data = [];
    this.csvRows = [['call path', ...names], ...rows.map((row, y) => [callpathNames[y], ...row])];
    let max = 0;
    let least = 0;
    rows.forEach((row, y) => row.forEach((v, x) => {
      const theirs = otherRows ? otherRows[y][x] : 0;
      const value = mode === 'diff' ? v - theirs : mode === 'other' ? (theirs !== 0 ? (100 * v) / theirs : '-') : v;
      data.push([x, y, value]);
      if (value !== '-') {
        max = Math.max(max, value);
        least = Math.min(least, value);
      }
    }));
    // Comparing, the diverging scale is centred on "no change" (0, or 100 %).
    const range = mode === 'diff' ? { min: -Math.max(max, -least, 1e-300), max: Math.max(max, -least, 1e-300) }
      : mode === 'other' ? { min: 0, max: 200 } : { min: 0, max: max || 1 };
    this.chart.setOption({
      animation: false,
      title: titleOf(title, rows.length === 0),
      tooltip: {
        position: 'top',
        formatter: (p) => `${callpathNames[p.value[1]]}<br>${names[p.value[0]]}: ${format(mode, p.value[2], unit)}`,
      },
      grid: { left: 180, right: 90, top: 40, bottom: names.length > 64 ? 60 : 40 },
      xAxis: { type: 'category', data: names, axisLabel: { color: TEXT, hideOverlap: names.length <= 64 } },
      yAxis: { type: 'category', data: callpathNames, inverse: true,
        axisLabel: { color: TEXT, fontSize: 11, width: 170, overflow: 'truncate' } },
      visualMap: { ...range, calculable: true, orient: 'vertical', right: 8, top: 40,
        inRange: { color: legendColours(mode) }, formatter: (v) => format(mode, v, unit) },
      dataZoom: names.length > 64 ? [{ type: 'slider', xAxisIndex: 0, bottom: 8, showDataShadow: false }] : [],
      series: [{ type: 'heatmap', data, progressive: 0, emphasis: { itemStyle: { borderColor: '#000' } } }],
    }, { notMerge: true });
  }

  /**
   * Each process's share (%) of the selection's total. With many processes,
   * neighbouring ranks are grouped so the radar keeps readable axes.
   */
  radar({ names, values, otherValues, reports, title }) {
    const groups = Math.min(RADAR_AXES, names.length);
    const per = Math.ceil(names.length / groups);
    const axisNames = [];
    const share = (vals) => {
      const total = vals.reduce((a, b) => a + b, 0);
      const out = [];
      for (let g = 0; g * per < vals.length; ++g) {
        const slice = vals.slice(g * per, (g + 1) * per);
        out.push(total !== 0 ? (100 * slice.reduce((a, b) => a + b, 0)) / total : 0);
      }
      return out;
    };
    for (let g = 0; g * per < names.length; ++g) {
      const last = Math.min(names.length, (g + 1) * per) - 1;
      axisNames.push(per === 1 ? names[g] : `${names[g * per]}…${names[last]}`);
    }
    const mine = share(values);
    const theirs = otherValues ? share(otherValues) : null;
    const max = Math.max(...mine, ...(theirs ?? []), 1e-9) * 1.1;
    this.csvRows = [['processes', `${reports[0]} share (%)`, ...(theirs ? [`${reports[1]} share (%)`] : [])],
      ...axisNames.map((n, i) => [n, mine[i], ...(theirs ? [theirs[i]] : [])])];
    const data = [{ name: reports[0], value: mine, areaStyle: { opacity: 0.25 } }];
    if (theirs) data.push({ name: reports[1], value: theirs, areaStyle: { opacity: 0.1 } });
    this.chart.setOption({
      animation: false,
      title: titleOf(title, values.every((v) => !v)),
      tooltip: { valueFormatter: (v) => `${v.toFixed(2)} %` },
      legend: { top: 4, right: 8 },
      radar: { indicator: axisNames.map((name) => ({ name, max })), radius: '65%', center: ['50%', '56%'],
        axisName: { color: TEXT, fontSize: 10 } },
      series: [{ type: 'radar', data, symbolSize: 3 }],
    }, { notMerge: true });
  }
}
