// The dashboard's Notifications section: each NOTIFY entry and the last thing it sent (or failed to).
import { escapeHtml as h } from './page.js';
import type { NotifierView } from './views.js';

export function notifySection(notify: NotifierView[] | undefined): string {
  if (!notify?.length) return '';
  const rows = notify.map((n) => {
    const last = n.last ? `${n.last.ok ? '<span class="badge b-ok">sent</span>' : '<span class="badge b-bad">failed</span>'} ${h(n.last.event)}: ${h(n.last.result)}, ${h(new Date(n.last.at).toISOString())}` : 'nothing sent yet';
    return `<li>${h(n.name)} <span class="muted">${h(n.type)}</span>: ${last}${n.dropped ? ` <span class="muted">(${n.dropped} dropped)</span>` : ''}</li>`;
  });
  return `<section aria-labelledby="notify-h"><h2 id="notify-h">Notifications</h2><ul>${rows.join('')}</ul></section>`;
}
