import { html, type Html } from '../lib/html.ts';

/**
 * Charts drawn on the server as SVG: no script, readable in both themes (colors are CSS variables that
 * dashboard.css sets for light and dark), and each with its numbers as a table beside it, for screen
 * readers and for anyone who would rather read than look.
 */

export interface Series {
  key: string;
  label: string;
}

export interface StackedBarsOptions<K extends string> {
  /** Unique on the page: prefixes the ids that tie the SVG to its title and description. */
  id: string;
  title: string;
  /** One sentence: what the chart shows, in numbers (the SVG's accessible description). */
  summary: string;
  series: readonly (Series & { key: K })[];
  bars: readonly ({ label: string; short: string } & Record<K, number>)[];
  /** The first column's heading in the table. */
  barHeading: string;
}

const WIDTH = 640;
/** The bars' drawing: its own coordinates, stretched to the plot's box (the labels are HTML, below). */
const PLOT_HEIGHT = 160;
/** A day label every this many bars, counted back from the last (today); every other one is hidden on narrow screens. */
const LABEL_STEP = 5;

/**
 * A bar per entry, its series stacked in order; the y axis from 0 to a round maximum. The axis labels
 * are HTML beside and below the SVG, not SVG text: the SVG stretches to its box (so text in it would
 * shrink with the screen, to 6 px at 390 px), while the labels keep the page's font size (0.75 rem)
 * at any width; on narrow screens every other day label is hidden so they do not collide.
 */
export function stackedBars<K extends string>(o: StackedBarsOptions<K>): Html {
  const totals = o.bars.map((b) => o.series.reduce((sum, s) => sum + b[s.key], 0));
  const max = niceMax(Math.max(1, ...totals));
  const slot = WIDTH / Math.max(1, o.bars.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => PLOT_HEIGHT - (value / max) * PLOT_HEIGHT;
  const ticks = [0, max / 2, max].filter((t) => Number.isInteger(t));

  const grid = ticks.map((t) => html`<line class="chart-grid" x1="0" x2="${WIDTH}" y1="${y(t)}" y2="${y(t)}" vector-effect="non-scaling-stroke"></line>`);
  const bars = o.bars.map((bar, i) => {
    const x = i * slot + (slot - barWidth) / 2;
    let base = 0;
    const parts = o.series.map((s) => {
      const value = bar[s.key];
      if (!value) return '';
      const top = y(base + value);
      const height = y(base) - top;
      base += value;
      return html`<rect class="chart-${s.key}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}"></rect>`;
    });
    const tooltip = `${bar.label}: ${o.series.map((s) => `${bar[s.key]} ${s.label.toLowerCase()}`).join(', ')}`;
    return html`<g><title>${tooltip}</title>${parts}</g>`;
  });
  // One cell per bar, as wide as its slot; a label is centered on its bar (the last one ends at the edge).
  const last = o.bars.length - 1;
  const xLabels = o.bars.map((bar, i) => {
    const step = (last - i) / LABEL_STEP;
    if (!Number.isInteger(step)) return html`<span></span>`;
    const cls = `${i === last ? 'chart-x-end' : ''}${step % 2 === 1 ? ' chart-x-minor' : ''}`.trim();
    return html`<span${cls ? html` class="${cls}"` : ''}><span class="chart-axis">${bar.short}</span></span>`;
  });

  const legend = o.series.map((s) => {
    const total = o.bars.reduce((sum, b) => sum + b[s.key], 0);
    return html`<li><span class="chart-swatch chart-${s.key}" aria-hidden="true"></span>${s.label} <strong>${total}</strong></li>`;
  });
  const table = html`<table class="list chart-table" data-chart="${o.id}">
<caption class="visually-hidden">${o.title}</caption>
<thead><tr><th scope="col">${o.barHeading}</th>${o.series.map((s) => html`<th scope="col">${s.label}</th>`)}</tr></thead>
<tbody>${o.bars.map((b) => html`<tr><th scope="row">${b.label}</th>${o.series.map((s) => html`<td data-series="${s.key}">${b[s.key]}</td>`)}</tr>`)}</tbody>
</table>`;
  return html`<figure class="chart" id="${o.id}">
<div class="chart-plot">
<div class="chart-y" aria-hidden="true">${ticks.map((t) => html`<span class="chart-axis">${t}</span>`)}</div>
<svg viewBox="0 0 ${WIDTH} ${PLOT_HEIGHT}" role="img" aria-labelledby="${o.id}-title ${o.id}-desc" preserveAspectRatio="none">
<title id="${o.id}-title">${o.title}</title>
<desc id="${o.id}-desc">${o.summary}</desc>
${grid}${bars}
</svg>
<div class="chart-x" aria-hidden="true">${xLabels}</div>
</div>
<figcaption><ul class="chart-legend">${legend}</ul></figcaption>
<details class="chart-data"><summary>${o.title}: as a table</summary><div class="table-wrap">${table}</div></details>
</figure>`;
}

export interface UsageBar {
  key: string;
  label: string;
  used: number;
  limit: number;
}

/**
 * Horizontal bars of use against a limit, one per row, each filled to its share (amber from 70 %, red
 * from 90 %). The numbers are in the SVG's description and, for everyone, in the table the page shows
 * beside it.
 */
export function usageBars(o: { id: string; title: string; bars: readonly UsageBar[] }): Html {
  const rowHeight = 28;
  const labelWidth = 150;
  const barWidth = WIDTH - labelWidth - 130;
  const height = o.bars.length * rowHeight + 4;
  const share = (b: UsageBar) => (b.limit > 0 ? Math.min(1, b.used / b.limit) : 0);
  const percent = (b: UsageBar) => `${(share(b) * 100).toFixed(share(b) < 0.1 && b.used > 0 ? 1 : 0)} %`;
  const summary = o.bars.map((b) => `${b.label}: ${b.used} of ${b.limit} (${percent(b)})`).join('; ');
  const rows = o.bars.map((b, i) => {
    const y = i * rowHeight + 4;
    const level = share(b) >= 0.9 ? 'high' : share(b) >= 0.7 ? 'mid' : 'low';
    return html`<g data-usage="${b.key}" data-used="${b.used}" data-limit="${b.limit}">
<text class="chart-label" x="0" y="${y + 15}">${b.label}</text>
<rect class="meter-track" x="${labelWidth}" y="${y + 4}" width="${barWidth}" height="14" rx="3"></rect>
<rect class="meter-fill meter-${level}" x="${labelWidth}" y="${y + 4}" width="${Math.max(b.used > 0 ? 2 : 0, share(b) * barWidth).toFixed(1)}" height="14" rx="3"></rect>
<text class="chart-label" x="${labelWidth + barWidth + 10}" y="${y + 15}">${b.used} / ${b.limit} · ${percent(b)}</text>
</g>`;
  });
  return html`<figure class="chart" id="${o.id}">
<svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${o.id}-title ${o.id}-desc" preserveAspectRatio="xMinYMid meet">
<title id="${o.id}-title">${o.title}</title>
<desc id="${o.id}-desc">${summary}.</desc>
${rows}
</svg>
</figure>`;
}

/** 1, 2, 5 × 10^n at or above `value`, so the axis reads in round numbers. */
function niceMax(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** `1 h 5 min`, `4 min 12 s`, `35 s`: a duration as people say it. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h} h${m ? ` ${m} min` : ''}`;
}
