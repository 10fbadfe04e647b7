// The HTML of the dashboard, and the layout it shares with the path doctor: server-rendered, inline CSS and a
// little JS, no CDN. Every link is relative to /<SERVER_PASS>/..., so the secret is never written into a page.
import type { TargetHealth } from '../processor/processor.js';
import { clockTime } from '../processor/server-hold.js';
import type { ChartData } from './chart-data.js';
import { chartsSection, chartStyle } from './charts.js';
import type { FinishedScan, QueuedFolder } from './schemas.js';
import { detailBlock } from './detail.js';
import { documentHead, escapeHtml as h, HEADER_STYLE, pageHeader } from './page.js';
import type { NotifierView } from './views.js';
import { notifySection } from './notify-section.js';
import { heldSection, type HeldList } from './held-section.js';
import { notSentYet, serversDownBanner } from './waiting-servers.js';
import type { AppView } from '../arr/connected.js';
import { appsSection } from './apps-section.js';
import { reconcileSection } from './reconcile-section.js';
import type { ReconcileView } from '../reconcile/schedule.js';

export interface DashboardView {
  now: number;
  /** When this run of the service started: the counts kept in memory ("since start") count from here. */
  startedAt: number;
  queue: QueuedFolder[];
  count: number;
  history: FinishedScan[];
  targets: TargetHealth[];
  held: string | null;
  /** Requests waiting for their file's SHA-256 (hash=). */
  hashHolds?: HeldList;
  drive: unknown;
  /** NOTIFY: each notifier's last result. */
  notify?: NotifierView[];
  /** ARR: each connected app's state and catch-up. */
  apps?: AppView[];
  /** ARR: each app × media server as last reconciled. */
  reconcile?: ReconcileView;
  /** The outcome of the action just taken (after a form POST). */
  notice?: string;
  /** A security problem to fix, shown above everything (a weak SERVER_PASS). */
  alert?: string;
  /** The last 24 hours in numbers (src/server/chart-data.ts), drawn by src/server/charts.ts. */
  charts?: ChartData;
}

const style = `
  :root { color-scheme: light dark; --accent: #2f6fde; --ok: #2a9d4b; --warn: #c7851c; --bad: #c93c3c; --line: #8884; }
  * { box-sizing: border-box; }
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; padding: 1rem; max-width: 60rem; margin-inline: auto; }
  ${HEADER_STYLE}
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  .live { font-size: .85rem; color: #888; } .live[data-state=on]::before { content: '● '; color: var(--ok); }
  .notice { padding: .5rem .8rem; border-left: .3rem solid var(--accent); background: #2f6fde1a; border-radius: .3rem; }
  .held { padding: .5rem .8rem; border-left: .3rem solid var(--bad); background: #c93c3c1a; border-radius: .3rem; }
  ul.cards { list-style: none; padding: 0; margin: 0; display: grid; gap: .6rem; }
  .card { border: 1px solid var(--line); border-radius: .5rem; padding: .6rem .8rem; }
  .card code.folder { font-weight: 600; overflow-wrap: anywhere; display: block; }
  dl.facts { display: flex; flex-wrap: wrap; gap: .2rem 1rem; margin: .35rem 0 0; font-size: .9rem; }
  dl.facts div { display: flex; gap: .3rem; } dt { color: #888; } dd { margin: 0; overflow-wrap: anywhere; }
  .badge { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-size: .8rem; border: 1px solid currentColor; }
  .b-ok { color: var(--ok); } .b-neutral { color: #888; } .b-warn { color: var(--warn); } .b-bad { color: var(--bad); }
  .err { color: var(--bad); font-size: .9rem; overflow-wrap: anywhere; margin: .3rem 0 0; }
  .actions { display: flex; flex-wrap: wrap; gap: .4rem; margin-top: .4rem; }
  details.confirm summary { cursor: pointer; display: inline-block; padding: .3rem .7rem; border: 1px solid var(--line); border-radius: .35rem; list-style: none; }
  details.confirm summary::-webkit-details-marker { display: none; }
  details.confirm[open] { flex-basis: 100%; } details.confirm form { margin-top: .4rem; }
  button { padding: .4rem .9rem; font: inherit; border: 0; border-radius: .35rem; background: var(--accent); color: #fff; cursor: pointer; }
  button.danger { background: var(--bad); }
  .empty { color: #888; } .muted { color: #888; font-size: .85rem; }
  label { display: block; font-weight: 600; margin-bottom: .25rem; }
  input[type=text] { width: 100%; padding: .55rem; font: inherit; border: 1px solid #8889; border-radius: .4rem; }
  form.ask button { margin-top: .6rem; }
  ol.steps { padding-left: 1.3rem; } ol.steps li { margin-bottom: .7rem; overflow-wrap: anywhere; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #8881; padding: .6rem; border-radius: .4rem; font-size: .85rem; }
  .verdict { padding: .6rem .8rem; border-radius: .4rem; border-left: .3rem solid; margin-top: 1rem; }
  .v-scan { border-color: var(--ok); background: #2a9d4b1a; } .v-other { border-color: var(--bad); background: #c93c3c1a; }
`;

export function layout(title: string, body: string, script = ''): string {
  return `${documentHead(title, style + chartStyle)}
<body>
${body}
${script ? `<script>${script}</script>` : ''}
</body>
</html>`;
}

export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs}h ${m % 60}m`;
  return `${Math.floor(hrs / 24)}d ${hrs % 24}h`;
}

const when = (t: number, now: number) =>
  `<time datetime="${new Date(t).toISOString()}" title="${new Date(t).toISOString()}">${t <= now ? `${span(now - t)} ago` : `in ${span(t - now)}`}</time>`;

const fact = (label: string, value: string) => `<div><dt>${h(label)}</dt><dd>${value}</dd></div>`;

/** What each follow-up word means, shown on hover: the words say only what is known. */
const MEANING: Record<string, string> = {
  confirmed: 'seen in the library',
  scanned: 'the server accepted and finished the scan; nothing could tell more',
  'not-found': 'the scan ended and the file is not in the library: see the advice below',
  unconfirmed: "the scan's end was never seen (timeout, or the server stopped answering)",
  refused: "a library's own folder: a whole-library scan is done only when asked for (see below)",
};

export function badge(state: string): string {
  // `scanned` is neutral: a setup without the database that works shows no colour of trouble.
  const tone = ['confirmed', 'up', 'would scan'].includes(state)
    ? 'ok'
    : state === 'scanned'
      ? 'neutral'
      : ['pending', 'following', 'unconfirmed', 'waiting', 'dispatching', 'dropped', 'refused'].includes(state)
        ? 'warn'
        : 'bad';
  const title = MEANING[state] ? ` title="${h(MEANING[state])}"` : '';
  return `<span class="badge b-${tone}"${title}>${h(state)}</span>`;
}

/** A button that asks first: the first click opens the question, the second does it (works without JS). */
function confirmAction(action: string, label: string, folder: string, question: string, danger = false): string {
  return `<details class="confirm">
    <summary role="button" aria-label="${h(`${label}: ${folder}`)}">${h(label)}</summary>
    <form method="post" action="dashboard/${action}">
      <input type="hidden" name="folder" value="${h(folder)}">
      <span>${h(question)}</span>
      <button type="submit"${danger ? ' class="danger"' : ''} aria-label="${h(`Yes, ${label.toLowerCase()} ${folder}`)}">Yes, ${h(label.toLowerCase())}</button>
    </form>
  </details>`;
}

function queueSection(v: DashboardView): string {
  const items = v.queue.map((f) => {
    const deliveries = f.deliveries.length
      ? f.deliveries
          .map((d) => {
            const since = d.state === 'following' && d.deliveredAt !== null ? ` <span class="muted">delivered ${span(Math.max(0, v.now - d.deliveredAt))} ago</span>` : '';
            return `${h(d.target)} ${badge(d.state)}${since}${d.attempts ? ` <span class="muted">${d.attempts} attempt(s)</span>` : ''}${d.lastError ? `<p class="err">${h(d.lastError)}</p>` : ''}`;
          })
          .join('<br>')
      : notSentYet(v.targets);
    return `<li class="card" data-folder="${h(f.folder)}">
      <code class="folder">${h(f.folder)}</code>
      <dl class="facts">
        ${received(f.received, f.folder)}
        ${fact('Due', f.dueInMs > 0 ? `in ${span(f.dueInMs)}` : 'now')}
        ${fact('Requests merged', String(f.requests))}
        ${fact('From', `${h(f.source)} / ${h(f.event)}`)}
        ${fact('Priority', String(f.priority))}
        ${fact('State', badge(f.state))}
        ${fact('Targets', deliveries)}
      </dl>
      ${f.lastError ? `<p class="err">${h(f.lastError)}</p>` : ''}
      <div class="actions">
        ${confirmAction('scan-now', 'Scan now', f.folder, 'Skip the remaining delay and scan this folder now?')}
        ${f.deliveries.some((d) => d.lastError) ? confirmAction('retry', 'Retry', f.folder, 'Try the failed targets again now?') : ''}
        ${confirmAction('drop', 'Drop', f.folder, 'Remove this folder from the queue without scanning it?', true)}
      </div>
    </li>`;
  });
  return `<section aria-labelledby="queue-h">
    <h2 id="queue-h">Queue <span class="muted">(${v.count} folder${v.count === 1 ? '' : 's'})</span></h2>
    ${items.length ? `<ul class="cards" id="queue">${items.join('')}</ul>` : '<p class="empty" id="queue">Nothing is waiting.</p>'}
  </section>`;
}

/** The path as the sender sent it, shown when the mapping changed it (Retry and Scan now map it again). */
function received(path: string | null, folder: string): string {
  return path && path !== folder ? fact('Received', `<code>${h(path)}</code>`) : '';
}

function historySection(v: DashboardView): string {
  const retryable = new Set(['unmatched', 'exhausted', 'dropped', 'not-found']);
  const items = v.history.map(
    (r) => `<li class="card">
      <code class="folder">${h(r.folder)}</code>
      <dl class="facts">
        ${received(r.received, r.folder)}
        ${fact('Asked', when(r.askedAt, v.now))}
        ${fact('Finished', `${when(r.finishedAt, v.now)} <span class="muted">(${span(r.finishedAt - r.askedAt)} later)</span>`)}
        ${fact(r.target ? `On ${r.target}` : 'Outcome', badge(r.outcome))}
        ${r.deliveryMs !== null ? fact('Delivered in', span(r.deliveryMs)) : ''}
        ${r.followMs !== null ? fact('Followed for', span(r.followMs)) : ''}
        ${fact('From', `${h(r.source)} / ${h(r.event)}${r.requests > 1 ? ` ×${r.requests}` : ''}`)}
      </dl>
      ${r.detail ? detailBlock(r.detail, ['scanned', 'confirmed'].includes(r.outcome) ? 'muted' : 'err') : ''}
      ${retryable.has(r.outcome) ? `<div class="actions">${confirmAction('retry', 'Retry', r.folder, 'Queue this folder again and scan it now?')}</div>` : ''}
    </li>`,
  );
  return `<section aria-labelledby="history-h">
    <h2 id="history-h">Recent history${items.length ? ` <span class="muted">(${items.length} finished, newest first)</span>` : ''}</h2>
    ${items.length ? `<ul class="cards" id="history">${items.join('')}</ul>` : '<p class="empty" id="history">Nothing has been scanned yet.</p>'}
  </section>`;
}

/** "since start (4m ago)": the window of a count kept in memory, which a restart sets back to 0. */
export const sinceStart = (v: Pick<DashboardView, 'now' | 'startedAt'>) => `since start (${span(v.now - v.startedAt)} ago)`;

function targetsSection(v: DashboardView): string {
  const items = v.targets.map(
    (t) => `<li class="card">
      <strong>${h(t.name)}</strong> <span class="muted">${h(t.kind)}</span> ${badge(t.up ? 'up' : 'down')}
      <dl class="facts">
        ${fact(`Scans ${sinceStart(v)}`, String(t.scanned))}
        ${fact(`Failures ${sinceStart(v)}`, String(t.failed))}
        ${fact('In flight', String(t.inFlight))}
        ${t.outstanding !== undefined ? fact('Outstanding', `${t.outstanding} of ${t.maxOutstanding ?? '—'}`) : ''}
        ${t.dueWaitMs ? fact('Next due waited', span(t.dueWaitMs)) : ''}
        ${t.socket ? fact('Socket', `${h(t.socket.state)}${t.socket.why ? ` (${h(t.socket.why)})` : ''}${t.socket.lastFrameAgeMs !== undefined ? `, last frame ${span(t.socket.lastFrameAgeMs)} ago` : ''}`) : ''}
        ${t.downSince ? fact('Down since', when(t.downSince, v.now)) : ''}
        ${t.nextProbeAt ? fact('Next try', when(t.nextProbeAt, v.now)) : ''}
        ${t.heldUntil ? fact('Scans', `holding until <time datetime="${new Date(t.heldUntil).toISOString()}">${clockTime(t.heldUntil)}</time> (server asked: ${h(t.heldAsked ?? 'Retry-After')})`) : ''}
      </dl>
      ${t.lastError ? `<p class="err">${h(t.lastError)}</p>` : ''}${(t.notes ?? []).map((n) => `<p class="muted note">${h(n)}</p>`).join('')}
    </li>`,
  );
  return `<section aria-labelledby="targets-h">
    <h2 id="targets-h">Media servers</h2>
    ${v.held ? `<p class="held" role="alert">Scans are held: ${h(v.held)}</p>` : ''}
    ${items.length ? `<ul class="cards" id="targets">${items.join('')}</ul>` : '<p class="empty" id="targets">No media server is configured: set PLEX_TOKEN or add TARGETS.</p>'}
  </section>`;
}

/** A status key as words: "lastPollAt" → "Last poll at", "pollIntervalSeconds" → "Poll interval seconds". */
function label(key: string): string {
  const words = key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function value(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return `<code>${h(JSON.stringify(v))}</code>`;
  return h(String(v));
}

function driveSection(v: DashboardView): string {
  const drive = v.drive;
  const off = drive === null || drive === undefined || (typeof drive === 'object' && (drive as { enabled?: unknown }).enabled === false);
  const body = off
    ? '<p class="empty">The Google Drive monitor is off (GOOGLE.ENABLED is false).</p>'
    : drive && typeof drive === 'object' && !Array.isArray(drive)
      ? `<div class="card"><dl class="facts">${Object.entries(drive as Record<string, unknown>)
          .filter(([k]) => k !== 'enabled')
          .map(([k, x]) => fact(label(k), /At$/.test(k) && typeof x === 'number' ? when(x, v.now) : value(x)))
          .join('')}</dl></div>`
      : `<p>${value(drive)}</p>`;
  return `<section aria-labelledby="drive-h"><h2 id="drive-h">Google Drive</h2>${body}</section>`;
}

/** The part of the dashboard that live updates replace. */
export function dashboardLive(v: DashboardView): string {
  // The queue first: on a phone it is what one came for, and the charts would push it a screen or more down.
  const following = new Map<string, number>();
  for (const d of v.queue.flatMap((f) => f.deliveries)) if (d.state === 'following') following.set(d.target, (following.get(d.target) ?? 0) + 1);
  const charts = v.charts ? chartsSection(v.charts, v.targets.map((t) => t.name), following) : '';
  return `${serversDownBanner(v.targets)}${queueSection(v)}${heldSection(v.hashHolds, (t) => when(t, v.now))}${charts}${historySection(v)}${targetsSection(v)}${appsSection(v.apps, sinceStart(v))}${reconcileSection(v.reconcile)}${notifySection(v.notify)}${driveSection(v)}`;
}

const liveScript = `
(() => {
  const region = document.getElementById('live');
  const status = document.getElementById('live-status');
  let timer = 0;
  // A button replaced between its press and its release never hears the click: hold the page while a finger is
  // down (a few seconds at most, should the release happen where the page cannot hear it).
  let pressedAt = 0;
  region.addEventListener('pointerdown', () => { pressedAt = Date.now(); });
  for (const end of ['pointerup', 'pointercancel']) addEventListener(end, () => { pressedAt = 0; });
  // Never pull a confirmation out from under someone's finger: one open now, or opened while the page came.
  const held = () => (pressedAt && Date.now() - pressedAt < 5000) || region.querySelector('details[open]');
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (held()) return refresh();
      const res = await fetch('dashboard/live', { headers: { accept: 'text/html' } }).catch(() => undefined);
      const html = res?.ok ? await res.text().catch(() => '') : '';
      if (held()) refresh();
      else if (html) region.innerHTML = html;
    }, 250);
  };
  const events = new EventSource('events');
  // Whatever happened between rendering this page and the stream opening would be missed: catch up once.
  events.onopen = () => { status.dataset.state = 'on'; status.textContent = 'Live'; refresh(); };
  events.onerror = () => { status.dataset.state = 'off'; status.textContent = 'Reconnecting…'; };
  for (const name of ['request', 'queued', 'delivery', 'followed', 'finished', 'target']) events.addEventListener(name, refresh);
  setInterval(refresh, 15000);
})();
`;

export function dashboardPage(v: DashboardView): string {
  return layout(
    'dashboard',
    `${pageHeader('Dashboard', { extra: '<span class="live" id="live-status" role="status" aria-live="polite">Not live</span>' })}
<main>
  ${v.alert ? `<p class="held" role="alert" id="security-alert">${h(v.alert)}</p>` : ''}
  ${v.notice ? `<p class="notice" role="status">${h(v.notice)}</p>` : ''}
  <div id="live">${dashboardLive(v)}</div>
</main>`,
    liveScript,
  );
}
