// Time series drawn on the server as inline SVG: a line chart with its axes, their labels and a
// legend, and the same figures as a table for screen readers and for copying (the chart is an
// image with a name; the table is what can be read). No script: it works with JavaScript off, the
// CSP allows it (presentation attributes, no style attribute), and tests can read it.
//
//   lineChart({ title: 'Opens', buckets, bucket: 'day', series: [{ label: 'People', values: [1, 4, 2] }] })
//
// Colours come from console.css (.chart-series-1 … 4), so the dark theme has its own.
import { formatNumber, table } from './components.ts';
import { html, type SafeHtml } from './html.ts';

export type ChartSeries = { label: string; values: readonly number[] };
export type ChartBucket = 'hour' | 'day';

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 16, bottom: 36, left: 56 };
const Y_TICKS = 4;
const MAX_X_LABELS = 8;

/**
 * The step between the value axis's ticks: the smallest 1, 2 or 5 × 10ⁿ that lets Y_TICKS steps
 * reach `max`, and at least 1 (the charts count things: no tick at 0.25 of a message).
 */
export function tickStep(max: number): number {
  const raw = max / Y_TICKS;
  if (raw <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const step of [1, 2, 5]) if (step * power >= raw) return step * power;
  return 10 * power;
}

/** A bucket's start as its axis label: "11-27" for a day, "11-27 14:00" for an hour (UTC). */
export function bucketLabel(at: Date, bucket: ChartBucket): string {
  const iso = at.toISOString();
  return bucket === 'day' ? iso.slice(5, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

function yAxis(step: number, plotHeight: number): SafeHtml[] {
  return Array.from({ length: Y_TICKS + 1 }, (_, i) => {
    const y = PAD.top + plotHeight - (plotHeight * i) / Y_TICKS;
    return html`<line class="chart-grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y}" y2="${y}"/><text class="chart-tick" x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${formatNumber(step * i)}</text>`;
  });
}

function xAxis(buckets: readonly Date[], bucket: ChartBucket, xOf: (i: number) => number): SafeHtml[] {
  const every = Math.max(1, Math.ceil(buckets.length / MAX_X_LABELS));
  return buckets.flatMap((at, i) =>
    i % every === 0
      ? [
          html`<text class="chart-tick" x="${xOf(i).toFixed(1)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${bucketLabel(at, bucket)}</text>`,
        ]
      : [],
  );
}

export function lineChart(input: {
  title: string;
  buckets: readonly Date[];
  bucket: ChartBucket;
  series: readonly ChartSeries[];
}): SafeHtml {
  const { buckets, bucket, series } = input;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const step = tickStep(Math.max(0, ...series.flatMap((s) => s.values)));
  const top = step * Y_TICKS;
  const xOf = (i: number) =>
    PAD.left + (buckets.length > 1 ? (plotWidth * i) / (buckets.length - 1) : plotWidth / 2);
  const yOf = (v: number) => PAD.top + plotHeight - (plotHeight * v) / top;
  const totals = series.map((s) => `${s.label} ${formatNumber(s.values.reduce((a, b) => a + b, 0))}`);
  const name = `${input.title}, per ${bucket}: ${totals.join(', ')}`;
  const lines = series.map((s, n) => {
    const points = s.values.map((v, i) => `${xOf(i).toFixed(1)},${yOf(v).toFixed(1)}`).join(' ');
    return html`<polyline class="chart-line chart-series-${n + 1}" fill="none" stroke="currentColor" stroke-width="2" points="${points}"><title>${s.label}</title></polyline>`;
  });
  const legend = series.map(
    (s, n) =>
      html`<li><span class="chart-swatch chart-series-${n + 1}" aria-hidden="true"></span>${s.label}</li>`,
  );
  const rows = buckets.map((at, i) => [
    bucketLabel(at, bucket),
    ...series.map((s) => formatNumber(s.values[i] ?? 0)),
  ]);
  return html`<figure class="chart">
<figcaption>${input.title}</figcaption>
<svg role="img" aria-label="${name}" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="xMidYMid meet">
<title>${name}</title>
${yAxis(step, plotHeight)}
<line class="chart-axis" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${PAD.top + plotHeight}" y2="${PAD.top + plotHeight}"/>
${xAxis(buckets, bucket, xOf)}
<text class="chart-tick" x="${PAD.left + plotWidth / 2}" y="${HEIGHT - 4}" text-anchor="middle">${bucket === 'day' ? 'Day (UTC)' : 'Hour (UTC)'}</text>
${lines}
</svg>
<ul class="chart-legend">${legend}</ul>
<details class="chart-table"><summary>${input.title}: the figures as a table</summary>
${table({ caption: `${input.title} per ${bucket}`, columns: [{ label: bucket === 'day' ? 'Day (UTC)' : 'Hour (UTC)' }, ...series.map((s) => ({ label: s.label, numeric: true }))], rows })}
</details>
</figure>`;
}
