// The connected apps (ARR) on the pages: each app's state and catch-up on the dashboard, and on the path doctor
// each app's root folders with the library that holds them, or the mapping line to add. Never an API key: the
// views carry none.
import type { AppView } from '../arr/connected.js';
import { MAX_ROOTS, type AppRoots } from '../arr/roots.js';
import { escapeHtml as h } from './page.js';

const TONE: Record<string, string> = { up: 'ok', connecting: 'neutral', down: 'bad', refused: 'bad', failing: 'warn' };
const WORD: Record<string, string> = { up: 'up', connecting: 'connecting', down: 'not answering', refused: 'key refused', failing: 'history unreadable' };

const fact = (label: string, value: string) => `<div><dt>${h(label)}</dt><dd>${value}</dd></div>`;
const time = (iso: string | null) => (iso ? `<time datetime="${h(iso)}">${h(iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>` : '—');

/** `sinceStart` says the window of the count kept in memory ("since start (4m ago)"). */
export function appsSection(apps: AppView[] | undefined, sinceStart = 'since start'): string {
  if (!apps?.length) return '';
  const items = apps.map(
    (a) => `<li class="card" data-app="${h(a.name)}">
      <strong>${h(a.name)}</strong> <span class="muted">${h(a.type)}${a.version ? ` ${h(a.version)}` : ''}</span> <span class="badge b-${TONE[a.state] ?? 'neutral'}">${h(WORD[a.state] ?? a.state)}</span>
      <dl class="facts">
        ${fact('Last event caught up', time(a.lastEvent))}
        ${fact(`Caught up ${sinceStart}`, String(a.caughtUp))}
        ${fact('Reads from', time(a.cursor))}
        ${fact('Last catch-up', time(a.lastCatchUp))}
        ${fact('Every', `${a.intervalSeconds}s`)}
      </dl>
      ${a.error ? `<p class="err">${h(a.error)}</p>` : ''}
      ${a.skipped ? `<p class="err">${h(a.skipped)}</p>` : ''}
    </li>`,
  );
  return `<section aria-labelledby="apps-h"><h2 id="apps-h">Connected apps</h2><ul class="cards" id="apps">${items.join('')}</ul></section>`;
}

export function appRootsSection(apps: AppRoots[] | undefined): string {
  if (!apps?.length) return '';
  const items = apps.map((a) => {
    const roots = a.error
      ? `<p class="err">${h(a.error)}</p>`
      : a.roots.length === 0
        ? '<p class="empty">No root folder (Settings > Media Management > Root Folders).</p>'
        : `<ul>${a.roots
            .map((r) => {
              const held = r.verdict === 'scan' || r.verdict === 'gives-up';
              const where = held ? h(r.libraries.join('; ')) + (r.verdict === 'gives-up' ? ' <span class="muted">(not visible where scanrelay checks that files exist: SERVER_FILE_EXIST_PATH_MAPPINGS)</span>' : '') : h(r.summary);
              const mapping = r.mapping ? `<br><code class="mapping">${h(r.mapping)}</code>` : '';
              return `<li><code>${h(r.path)}</code>${r.folder !== r.path.replace(/[\\/]+$/, '') ? ` → <code>${h(r.folder)}</code>` : ''} <span class="badge b-${held ? 'ok' : 'bad'}">${held ? 'in a library' : h(r.verdict)}</span>: ${where}${mapping}</li>`;
            })
            .join('')}</ul>${a.more ? `<p class="muted">And ${a.more} more root folders, not explained (only the first ${MAX_ROOTS} are).</p>` : ''}`;
    return `<li><strong>${h(a.app)}</strong> <span class="muted">${h(a.type)}</span>${roots}</li>`;
  });
  return `<section aria-labelledby="roots-h" id="app-roots"><h2 id="roots-h">Root folders of the connected apps</h2><ul>${items.join('')}</ul></section>`;
}
