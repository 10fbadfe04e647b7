// The dashboard's list of requests waiting for their file's SHA-256 (autopulse's hash=): how many of the cap, and
// each with its checks, so a flood of them is seen. Shown only while some wait.
import type { HeldView } from '../hash/hold.js';
import { escapeHtml as h } from './page.js';

export interface HeldList {
  list: HeldView[];
  limit: number;
}

/** At most this many are listed; the count says the rest. */
const SHOWN = 50;

/** `ago` writes a time as the rest of the dashboard does. */
export function heldSection(holds: HeldList | undefined, ago: (t: number) => string): string {
  if (!holds?.list.length) return '';
  const items = holds.list.slice(0, SHOWN).map((x) => {
    const state = x.reading ? 'reading now' : `check ${x.checks} of ${x.of}`;
    const merged = x.requests > 1 ? `, ${x.requests} requests merged` : '';
    return `<li><code>${h(x.path)}</code> <span class="muted">since ${ago(x.since)}, ${h(state)}${merged}</span></li>`;
  });
  const more = holds.list.length > SHOWN ? `<p class="muted">and ${holds.list.length - SHOWN} more</p>` : '';
  return `<section aria-labelledby="held-h">
    <h2 id="held-h">Waiting for a file's SHA-256 <span class="muted">(${holds.list.length} of at most ${holds.limit}; hash=)</span></h2>
    <ul id="held">${items.join('')}</ul>${more}
  </section>`;
}
