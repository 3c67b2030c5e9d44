import { html, type Html } from './html';

/**
 * Bar charts drawn on the server as SVG (no script, no style attribute: the CSP allows neither; the
 * look is console.css's `.chart` rules). Each is an image with a title and a description for
 * screen readers; the numbers it draws are also in a table beside it.
 */

const WIDTH = 720;
const HEIGHT = 200;
/** room for the scale's labels on the left and the days under the bars */
const LEFT = 64;
const BOTTOM = 28;
const TOP = 12;

export interface Bar {
  /** the day (YYYY-MM-DD) under the bar */
  label: string;
  /** the bar's height in the chart's unit; null draws no bar (no value that day) */
  value: number | null;
  /** what the bar's own tooltip says */
  text: string;
}

export interface BarChart {
  /** the chart's id, and the prefix of its title's and description's ids */
  id: string;
  title: string;
  description: string;
  bars: readonly Bar[];
  /** the scale's top: the largest value when absent */
  max?: number;
  /** a value as the scale's labels show it */
  format: (value: number) => string;
}

/** A bar chart of one value per day, its scale from 0 to the largest bar (or `max`). */
export function barChart(chart: BarChart): Html {
  const values = chart.bars.map((bar) => bar.value ?? 0);
  const max = chart.max ?? Math.max(0, ...values);
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = plotWidth / Math.max(1, chart.bars.length);
  const barWidth = Math.max(1, step * 0.8);
  const y = (value: number) => TOP + plotHeight - (max > 0 ? (value / max) * plotHeight : 0);
  const bars = chart.bars.map((bar, i) => {
    if (bar.value === null) return '';
    const top = y(bar.value);
    return html`<rect
      class="bar"
      x="${fixed(LEFT + i * step + (step - barWidth) / 2)}"
      y="${fixed(top)}"
      width="${fixed(barWidth)}"
      height="${fixed(TOP + plotHeight - top)}"
    >
      <title>${bar.label}: ${bar.text}</title>
    </rect>`;
  });
  const first = chart.bars[0]?.label ?? '';
  const last = chart.bars[chart.bars.length - 1]?.label ?? '';
  const base = TOP + plotHeight;
  return html`<svg
    id="${chart.id}"
    class="chart"
    role="img"
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    aria-labelledby="${chart.id}-title ${chart.id}-desc"
  >
    <title id="${chart.id}-title">${chart.title}</title>
    <desc id="${chart.id}-desc">${chart.description}</desc>
    <line class="axis" x1="${LEFT}" y1="${base}" x2="${WIDTH - 8}" y2="${base}" />
    <line class="grid" x1="${LEFT}" y1="${TOP}" x2="${WIDTH - 8}" y2="${TOP}" />
    <text class="scale" x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end">${chart.format(max)}</text>
    <text class="scale" x="${LEFT - 6}" y="${base + 4}" text-anchor="end">${chart.format(0)}</text>
    ${bars}
    <text class="scale" x="${LEFT}" y="${HEIGHT - 8}">${first}</text>
    <text class="scale" x="${WIDTH - 8}" y="${HEIGHT - 8}" text-anchor="end">${last}</text>
  </svg>`;
}

/** A coordinate with at most two decimals (the SVG stays short). */
function fixed(value: number): string {
  return String(Math.round(value * 100) / 100);
}
