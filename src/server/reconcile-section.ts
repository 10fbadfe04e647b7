// The reconcile (src/reconcile/) on the pages: on the dashboard a card per ARR app × media server (the app's files
// in that server's libraries, missing, unknown to the app, when), and on the path doctor the first paths of each
// list and why an audit queued nothing. Never an API key: the views carry none.
import type { ReconcileView } from '../reconcile/schedule.js';
import { escapeHtml as h } from './page.js';

const fact = (label: string, value: string) => `<div><dt>${h(label)}</dt><dd>${value}</dd></div>`;
const time = (iso: string | null) => (iso ? `<time datetime="${h(iso)}">${h(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>` : '—');

export function reconcileSection(v: ReconcileView | undefined): string {
  if (!v || (v.audits.length === 0 && v.apps.every((a) => a.intervalHours <= 0))) return '';
  const cards = v.audits.map((a) => {
    const tone = a.error ? 'bad' : a.held ? 'warn' : a.missing ? 'warn' : 'ok';
    const word = a.error ? 'unreadable' : a.held ? 'held back' : a.missing ? `${a.missing} missing` : 'complete';
    return `<li class="card" data-reconcile="${h(`${a.app}/${a.target}`)}">
      <strong>${h(a.app)}</strong> → <strong>${h(a.target)}</strong> <span class="badge b-${tone}">${h(word)}</span>
      <dl class="facts">
        ${fact('Files', String(a.files))}
        ${fact('Missing', String(a.missing))}
        ${fact('Unknown to the app', String(a.unknown))}
        ${fact('Audited', time(a.at))}
      </dl>
      ${a.error || a.held ? `<p class="err">${h(a.error ?? a.held ?? '')}</p>` : ''}
    </li>`;
  });
  const next = v.apps
    .map((a) => `${h(a.app)}: ${a.intervalHours > 0 ? `next ${time(a.next)}` : 'off (RECONCILE_INTERVAL 0)'}${a.error ? ` <span class="err">${h(a.error)}</span>` : ''}`)
    .join('; ');
  const empty = cards.length ? '' : '<p class="empty">No audit yet.</p>';
  return `<section aria-labelledby="reconcile-h"><h2 id="reconcile-h">Reconcile${v.running ? ' <span class="badge b-neutral">running</span>' : ''}</h2><p class="muted">${next}</p>${empty}<ul class="cards" id="reconcile">${cards.join('')}</ul></section>`;
}

export function reconcileDoctorSection(v: ReconcileView | undefined): string {
  const audits = v?.audits.filter((a) => a.error || a.held || a.missing || a.unknown) ?? [];
  if (!audits.length) return '';
  const list = (label: string, paths: string[], total: number) =>
    paths.length ? `<p>${h(label)}${total > paths.length ? ` (the first ${paths.length} of ${total})` : ''}:</p><ul>${paths.map((p) => `<li><code>${h(p)}</code></li>`).join('')}</ul>` : '';
  const items = audits.map(
    (a) => `<li><strong>${h(a.app)}</strong> → <strong>${h(a.target)}</strong> <span class="muted">${time(a.at)}</span>
      ${a.error || a.held ? `<p class="err">${h(a.error ?? a.held ?? '')}</p>` : ''}
      ${list('Missing (the app has the file, the server no item)', a.samples?.missing ?? [], a.missing)}
      ${list('Unknown to the app (never deleted)', a.samples?.unknown ?? [], a.unknown)}</li>`,
  );
  return `<section aria-labelledby="reconcile-doctor-h" id="reconcile-doctor"><h2 id="reconcile-doctor-h">What the last reconcile found</h2><p>Paths as the app names them (missing) and as the server does (unknown). Explain one above to see where it goes.</p><ul>${items.join('')}</ul></section>`;
}
