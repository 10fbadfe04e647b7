// What the dashboard says first when a media server cannot take scans: a banner at the top naming each server
// that is down or refuses the token, and, on each queued folder not yet sent, which server it waits for and why.
import type { TargetHealth } from '../processor/availability.js';
import { escapeHtml as h } from './page.js';

type Server = Pick<TargetHealth, 'name' | 'up' | 'lastError'>;

/** A server's trouble in a few words: what a person checks first. */
export function troubleOf(t: Server): string {
  const error = t.lastError ?? '';
  if (/\b40[13]\b|token/i.test(error)) return 'token refused';
  return 'not answering';
}

/** The banner above everything else; empty while every server is up. */
export function serversDownBanner(targets: Server[]): string {
  const down = targets.filter((t) => !t.up);
  if (down.length === 0) return '';
  const lines = down.map((t) => {
    const fix = troubleOf(t) === 'token refused' ? 'check its token (PLEX_TOKEN, or TOKEN of its TARGETS entry)' : 'check that it runs and that its URL is right';
    return `<p><strong>${h(t.name)}: ${troubleOf(t)}.</strong> Its folders wait in the queue and go as soon as it answers; ${fix}.${t.lastError ? ` <span class="muted">${h(t.lastError)}</span>` : ''}</p>`;
  });
  return `<section class="held" role="alert" id="servers-down" aria-label="Media servers that cannot take scans">${lines.join('')}</section>`;
}

/** What a queued folder with nothing sent yet shows for its targets. */
export function notSentYet(targets: Server[]): string {
  const down = targets.filter((t) => !t.up);
  if (down.length === 0) return '<span class="muted">not sent yet</span>';
  return down.map((t) => `<span class="muted">waiting for ${h(t.name)}: ${troubleOf(t)}</span>`).join('<br>');
}
