// The table of notifier types: how one message becomes one HTTP request for each. Formats from each service's
// documentation (cited in docs/configuration.md#notifications): Discord's execute-webhook body, ntfy's
// plain publish with headers, Gotify's POST /message, the Apprise API's /notify.
import { severityOf, titleOf, type Message } from './message.js';
import type { NotifierConfig } from './schema.js';

export interface Outgoing {
  url: string;
  headers: Record<string, string>;
  body: string;
}

type Carrier = (m: Message, url: string) => Outgoing;

const json = (url: string, body: unknown): Outgoing => ({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The message and its fields as lines, for the carriers that take text. */
function text(m: Message): string {
  const extra = Object.entries(m.fields ?? {}).map(([k, v]) => `${k}: ${v}`);
  return [m.message, ...extra].join('\n');
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export const CARRIERS: Record<NotifierConfig['TYPE'], Carrier> = {
  // Any receiver of one's own: the event's fields at the top level, beside event, target, message and at.
  json: (m, url) => json(url, { ...m.fields, event: m.event, target: m.target ?? null, message: m.message, at: new Date(m.at).toISOString() }),
  // Discord: `content` at most 2,000 characters, one embed (title ≤ 256, description ≤ 4,096).
  discord: (m, url) =>
    json(url, {
      content: cut(m.message, 2000),
      embeds: [{ title: cut(titleOf(m), 256), description: cut(text(m), 4096), timestamp: new Date(m.at).toISOString() }],
    }),
  // ntfy: the body is the text; title, priority and tags as headers (ASCII only in headers, hence no emoji).
  ntfy: (m, url) => ({
    url,
    headers: { 'content-type': 'text/plain; charset=utf-8', title: titleOf(m).replace(/[^\x20-\x7e]/g, '?'), priority: severityOf(m) === 'failure' ? '4' : '3', tags: m.event },
    body: cut(text(m), 4096),
  }),
  // Gotify: POST <server>/message?token=<app token> (the token in the configured URL).
  gotify: (m, url) => json(url, { title: titleOf(m), message: text(m), priority: severityOf(m) === 'failure' ? 8 : 5 }),
  // Apprise API: POST <api>/notify/<key> (stateful) or /notify with "urls" in the URL's own query.
  apprise: (m, url) => json(url, { title: titleOf(m), body: text(m), type: severityOf(m) }),
};
