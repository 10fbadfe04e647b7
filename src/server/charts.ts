// The dashboard's charts as inline SVG (no script, no CDN): requests and scans per minute, queue depth,
// latency p50/p95 and each target's latest outcomes, each with a written summary for those who cannot see it.
import type { ChartData, LatencySeries } from './chart-data.js';
import { escapeHtml as h } from './page.js';

/** Appended to the dashboard's stylesheet; colours come from its variables, so dark mode follows. */
export const chartStyle = `
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(17rem, 1fr)); gap: .8rem; }
  figure.chart { margin: 0; border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .6rem; min-width: 0; }
  figure.chart figcaption { font-weight: 600; font-size: .95rem; }
  figure.chart svg { display: block; width: 100%; height: auto; margin: .3rem 0; overflow: visible; }
  figure.chart .sum { margin: 0; font-size: .85rem; color: #888; }
  .chart text { font: 10px system-ui, sans-serif; fill: #888; }
  .chart .grid { stroke: var(--line); stroke-width: 1; }
  .chart .s-requests { stroke: var(--accent); } .chart .s-scans { stroke: var(--ok); }
  .chart .s-0 { stroke: var(--accent); } .chart .s-1 { stroke: var(--warn); } .chart .s-2 { stroke: var(--ok); }
  .chart path.line { fill: none; stroke-width: 1.6; stroke-linejoin: round; } .chart path.p95 { stroke-dasharray: 4 3; }
  .chart circle.dot { fill: currentColor; stroke-width: 1.6; } .chart circle.p95 { fill: none; }
  .chart circle.s-0 { color: var(--accent); } .chart circle.s-1 { color: var(--warn); } .chart circle.s-2 { color: var(--ok); }
  .chart path.area { fill: var(--warn); fill-opacity: .35; stroke: var(--warn); stroke-width: 1.2; }
  .key { display: flex; flex-wrap: wrap; gap: .1rem .8rem; font-size: .8rem; margin: 0; padding: 0; list-style: none; }
  .key i { display: inline-block; width: 1rem; border-top: 2px solid; vertical-align: middle; margin-right: .3rem; }
  .key i.dash { border-top-style: dashed; }
  .k-requests, .k-0 { color: var(--accent); } .k-scans, .k-2 { color: var(--ok); } .k-1 { color: var(--warn); }
  ul.strips { list-style: none; margin: .3rem 0; padding: 0; display: grid; gap: .35rem; }
  ul.strips svg.strip { height: 1rem; margin: .15rem 0 0; }
  .strip .o-ok { fill: var(--ok); } .strip .o-warn { fill: var(--warn); } .strip .o-bad { fill: var(--bad); }
`;

const W = 320;
const H = 120;
const PAD = { left: 30, right: 6, top: 8, bottom: 16 };
const plotW = W - PAD.left - PAD.right;
const plotH = H - PAD.top - PAD.bottom;

const num = (n: number) => (n === 0 ? '0' : n < 10 ? n.toFixed(1).replace(/\.0$/, '') : String(Math.round(n)));

function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 90) return `${Math.round(s)}s`;
  if (s < 5400) return `${Math.round(s / 60)}m`;
  return `${(s / 3600).toFixed(1).replace(/\.0$/, '')}h`;
}

/** "just now", "20 min ago", "3 h ago": a moment before now. */
function ago(at: number, now: number): string {
  const m = Math.max(0, Math.round((now - at) / 60_000));
  return m < 1 ? 'just now' : m < 60 ? `${m} min ago` : `${Math.round(m / 60)} h ago`;
}

/** "1 request", "3 requests". */
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * When bucket `i` was, said from now: "in the last 4 min" for the bucket running or just ended, "20–30 min ago"
 * for one within the hour, "about 3 h ago" for older ones.
 */
function whenBucket(d: ChartData, i: number): string {
  const start = d.from + i * d.bucketMs;
  const end = start + d.bucketMs;
  const sinceStart = Math.max(1, Math.ceil((d.now - start) / 60_000));
  if (d.now - end < 60_000) return `in the last ${sinceStart} min`;
  if (sinceStart <= 60) return `${Math.round((d.now - end) / 60_000)}–${sinceStart} min ago`;
  return `about ${Math.max(1, Math.round((d.now - (start + end) / 2) / 3_600_000))} h ago`;
}

/** A nice upper bound for the y axis (1, 2, 5 × 10^k). */
function ceiling(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= max)!;
}

interface Line {
  cls: string;
  values: (number | null)[];
  dashed?: boolean;
  area?: boolean;
}

/** A path through the points; a null leaves a gap. `dots` gathers the points no neighbour joins (drawn apart). */
function pathOf(values: (number | null)[], top: number, area: boolean, dots: [number, number][] = []): string {
  const x = (i: number) => PAD.left + (values.length === 1 ? plotW / 2 : (i * plotW) / (values.length - 1));
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const parts: string[] = [];
  let run: [number, number][] = [];
  const close = () => {
    if (run.length === 0) return;
    // A point alone (the first hour of a series, an hour between gaps) makes a path of one move: nothing is drawn.
    if (run.length === 1 && !area) dots.push(run[0]);
    const d = run.map(([px, py], k) => `${k === 0 ? 'M' : 'L'}${px.toFixed(1)} ${py.toFixed(1)}`).join(' ');
    parts.push(area ? `${d} L${run.at(-1)![0].toFixed(1)} ${PAD.top + plotH} L${run[0][0].toFixed(1)} ${PAD.top + plotH} Z` : d);
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null) close();
    else run.push([x(i), y(v)]);
  });
  close();
  return parts.join(' ');
}

/** Round durations for a time axis, so its middle line reads 5m rather than 8.3m. */
const TIME_STEPS = [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14_400, 28_800, 86_400].map((s) => s * 1000);
const timeCeiling = (max: number) => TIME_STEPS.find((v) => v >= max) ?? ceiling(max);

function plot(id: string, lines: Line[], data: { from: number; to: number }, yLabel: (v: number) => string, empty: boolean, top_ = ceiling): string {
  const max = Math.max(0, ...lines.flatMap((l) => l.values.filter((v): v is number => v !== null)));
  const top = top_(max);
  const grid = [0, 0.5, 1]
    .map((f) => {
      const y = PAD.top + plotH - f * plotH;
      return `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y}" y2="${y}"/><text x="${PAD.left - 4}" y="${y + 3}" text-anchor="end">${h(yLabel(top * f))}</text>`;
    })
    .join('');
  const hours = Math.round((data.to - data.from) / 3_600_000);
  const xs = `<text x="${PAD.left}" y="${H - 3}">${hours} h ago</text><text x="${PAD.left + plotW / 2}" y="${H - 3}" text-anchor="middle">${Math.round(hours / 2)} h ago</text><text x="${W - PAD.right}" y="${H - 3}" text-anchor="end">now</text>`;
  const paths = empty
    ? `<text x="${PAD.left + plotW / 2}" y="${PAD.top + plotH / 2}" text-anchor="middle">no data yet</text>`
    : lines
        .map((l) => {
          const dots: [number, number][] = [];
          const d = pathOf(l.values, top, !!l.area, dots);
          const marks = dots.map(([cx, cy]) => `<circle class="dot ${l.cls}${l.dashed ? ' p95' : ''}" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="${l.dashed ? 2.2 : 3}"/>`).join('');
          return `<path class="${l.area ? 'area' : 'line'} ${l.cls}${l.dashed ? ' p95' : ''}" d="${d}"/>${marks}`;
        })
        .join('');
  return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-cap ${id}-sum" data-chart="${id}">${grid}${xs}${paths}</svg>`;
}

function figure(id: string, caption: string, svg: string, summary: string, key = ''): string {
  return `<figure class="chart" id="${id}"><figcaption id="${id}-cap">${h(caption)}</figcaption>${key}${svg}<p class="sum" id="${id}-sum">${h(summary)}</p></figure>`;
}

/** The bucket with the largest value (the latest of equals is not preferred: the first wins). */
function peak(values: number[]): { value: number; i: number } {
  let best = 0;
  values.forEach((v, i) => {
    if (v > values[best]) best = i;
  });
  return { value: values[best] ?? 0, i: best };
}

/** A count axis: whole numbers on every line (0, 1, 2 rather than 0, 0.5, 1). */
const countCeiling = (max: number) => Math.max(2, ceiling(max));

function rateFigure(d: ChartData): string {
  // The data are per minute; a person reads counts per bucket ("3 requests in 10 minutes"), not "0.3 per minute".
  const minutes = Math.round(d.bucketMs / 60_000);
  const counts = (v: number[]) => v.map((x) => Math.round(x * minutes));
  const requests = counts(d.requests);
  const scans = counts(d.scans);
  const total = (v: number[]) => v.reduce((a, b) => a + b, 0);
  const empty = total(requests) === 0 && total(scans) === 0;
  const pr = peak(requests);
  const ps = peak(scans);
  const busiest = (p: { value: number; i: number }, word: string) => (p.value === 0 ? `no ${word}s` : `${plural(p.value, word)} (${whenBucket(d, p.i)})`);
  const summary = empty
    ? 'No requests or scans in the last 24 hours.'
    : `Last 24 hours: ${plural(total(requests), 'request')} and ${plural(total(scans), 'scan')}. The busiest ${minutes} minutes: ${busiest(pr, 'request')}; ${busiest(ps, 'scan')}.`;
  const key = '<ul class="key"><li class="k-requests"><i></i>requests</li><li class="k-scans"><i></i>scans</li></ul>';
  const svg = plot('chart-rate', [{ cls: 's-requests', values: requests }, { cls: 's-scans', values: scans }], d, num, empty, countCeiling);
  return figure('chart-rate', `Requests and scans per ${minutes} minutes`, svg, summary, key);
}

function depthFigure(d: ChartData): string {
  const empty = d.depth.every((v) => v === 0) && d.queuedNow === 0;
  const p = peak(d.depth);
  const summary = empty
    ? 'The queue was empty for the last 24 hours.'
    : `${plural(d.queuedNow, 'folder')} queued now; at most ${plural(p.value, 'folder')}, ${whenBucket(d, p.i)}.`;
  return figure('chart-depth', 'Queue depth (folders)', plot('chart-depth', [{ cls: 'depth', values: d.depth, area: true }], d, num, empty, countCeiling), summary);
}

function latencySummary(s: LatencySeries): string {
  const last = (v: (number | null)[]) => [...v].reverse().find((x) => x !== null) ?? null;
  const p50 = last(s.p50);
  const p95 = last(s.p95);
  if (p50 === null || p95 === null) return `${s.label}: nothing finished in the last 24 hours.`;
  const hours = s.p95.filter((x): x is number => x !== null);
  if (hours.length === 1) return `${s.label}: lately half within ${duration(p50)}, 95% within ${duration(p95)} (one hour with scans so far: a dot).`;
  const worst = Math.max(...hours);
  return `${s.label}: lately half within ${duration(p50)}, 95% within ${duration(p95)}; slowest hour's 95% ${duration(worst)}.`;
}

function latencyFigure(d: ChartData): string {
  const lines: Line[] = d.latency.flatMap((s, i) => [
    { cls: `s-${i % 3}`, values: s.p50 },
    { cls: `s-${i % 3}`, values: s.p95, dashed: true },
  ]);
  const empty = lines.every((l) => l.values.every((v) => v === null));
  const key = `<ul class="key">${d.latency.map((s, i) => `<li class="k-${i % 3}"><i></i>${h(s.label)} p50</li><li class="k-${i % 3}"><i class="dash"></i>p95</li>`).join('')}</ul>`;
  const summary = d.latency.map((s) => latencySummary(s)).join(' ');
  return figure('chart-latency', 'Scan latency, p50 and p95 per hour', plot('chart-latency', lines, { from: d.from, to: d.to }, (v) => duration(v), empty, timeCeiling), summary, key);
}

const tone = (outcome: string) => (['scanned', 'confirmed'].includes(outcome) ? 'ok' : ['unmatched', 'refused', 'not-found', 'unconfirmed', 'dropped'].includes(outcome) ? 'warn' : 'bad');

/**
 * Each target's latest outcomes. A strip holds what finished (history); a scan the server took and that is still
 * followed to its end is in the queue, so `following` counts those, and the text says both.
 */
function stripsFigure(d: ChartData, targets: string[], following: Map<string, number>): string {
  const names = [...new Set([...targets, ...d.strips.map((s) => s.target)])];
  const items = names.map((name) => {
    const outcomes = d.strips.find((s) => s.target === name)?.outcomes ?? [];
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o.outcome, (counts.get(o.outcome) ?? 0) + 1);
    const now = following.get(name) ? ` ${following.get(name)} being followed now (in the queue).` : '';
    const text = outcomes.length
      ? `${name}, latest ${outcomes.length} finished in the last 24 hours: ${[...counts].map(([o, c]) => `${c} ${o}`).join(', ')}.${now}`
      : `${name}: nothing finished in the last 24 hours.${now}`;
    const cells = outcomes
      .map((o, i) => `<rect class="o-${tone(o.outcome)}" x="${i + 0.06}" y="0" width="0.88" height="1"><title>${h(`${o.outcome} ${ago(o.at, d.now)}: ${o.folder}`)}</title></rect>`)
      .join('');
    return `<li><span id="strip-${h(name)}">${h(text)}</span><svg class="strip" viewBox="0 0 ${Math.max(outcomes.length, 1)} 1" preserveAspectRatio="none" role="img" aria-labelledby="strip-${h(name)}">${cells}</svg></li>`;
  });
  const body = items.length ? `<ul class="strips">${items.join('')}</ul>` : '<p class="sum">No media server is configured.</p>';
  return `<figure class="chart" id="chart-outcomes"><figcaption>Latest outcomes per media server</figcaption>${body}<p class="sum">Green: scanned; amber: not in any library (or not found after the scan); red: failed and retried.</p></figure>`;
}

/**
 * The charts section of the dashboard; `targets` are the configured media servers (shown even with no history),
 * `following` how many of each one's scans are still followed in the queue.
 */
export function chartsSection(d: ChartData, targets: string[], following = new Map<string, number>()): string {
  return `<section aria-labelledby="charts-h"><h2 id="charts-h">Last 24 hours</h2><div class="charts">${rateFigure(d)}${depthFigure(d)}${latencyFigure(d)}${stripsFigure(d, targets, following)}</div></section>`;
}
