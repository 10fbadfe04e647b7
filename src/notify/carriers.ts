// The table of notifier types: how one message becomes one HTTP request for each. Formats from each service's
// documentation (cited in docs/configuration.md#notifications): Discord's execute-webhook body, ntfy's
// plain publish with headers, Gotify's POST /message, the Apprise API's /notify. Names and error texts come from
// strangers (an indexer names the release): each carrier says whether its receiver renders markup and how long
// a text may be, and every cut is fit()'s (src/notify/limits.ts).
import { fit, type Limit } from './limits.js';
import { escapeMarkdown } from './markdown.js';
import { severityOf, titleOf, type Message } from './message.js';
import type { NotifierConfig } from './schema.js';

export interface Outgoing {
  url: string;
  headers: Record<string, string>;
  body: string;
}

type Carrier = (m: Message, url: string) => Outgoing;

const json = (url: string, body: unknown): Outgoing => ({ url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const asIs = (s: string) => s;

/** The message and its fields as lines, for the carriers that take text; values through `escape`, keys as `key`. */
function lines(m: Message, escape = asIs, key = asIs): string {
  const extra = Object.entries(m.fields ?? {}).map(([k, v]) => `${key(k)}: ${escape(String(v))}`);
  return [m.message.render(escape), ...extra].join('\n');
}

// discord/discord-api-docs developers/resources/webhook.mdx L237 (content ≤ 2000 characters) and
// developers/resources/message.mdx L603-619 (embed title ≤ 256, description ≤ 4096, all embeds ≤ 6000).
const DISCORD: Record<'content' | 'title' | 'description', Limit> = {
  content: { max: 2000, unit: 'characters' },
  title: { max: 256, unit: 'characters' },
  description: { max: 4096, unit: 'characters' },
};

// binwiederhier/ntfy docs/publish.md L3721: "Each message can be up to 4,096 bytes long"; a longer one (or one
// not UTF-8) becomes an attachment instead of a notification (L2526).
const NTFY: Limit = { max: 4096, unit: 'bytes' };

export const CARRIERS: Record<NotifierConfig['TYPE'], Carrier> = {
  // Any receiver of one's own: the event's fields at the top level, beside event, target, message and at. Raw
  // values: it renders nothing, and its own code decides how to show them.
  json: (m, url) => json(url, { ...m.fields, event: m.event, target: m.target ?? null, message: m.message.render(), at: new Date(m.at).toISOString() }),
  // Discord renders markdown in content, the embed's title and its description: values escaped, our own words
  // and the bold field names kept. Webhooks parse user mentions by default (message.mdx L710-758, "Allowed
  // Mentions Object"); `parse: []` lets no name in a message ping a user, a role, @everyone or @here.
  discord: (m, url) =>
    json(url, {
      content: fit(m.message.render(escapeMarkdown), DISCORD.content),
      embeds: [
        {
          title: fit(titleOf(m).render(escapeMarkdown), DISCORD.title),
          description: fit(lines(m, escapeMarkdown, (k) => `**${k}**`), DISCORD.description),
          timestamp: new Date(m.at).toISOString(),
        },
      ],
      allowed_mentions: { parse: [] },
    }),
  // ntfy: the body is the text, shown as plain text (no Markdown header is sent: docs/publish.md L642-643); title,
  // priority and tags as headers (ASCII only in headers, hence no emoji).
  ntfy: (m, url) => ({
    url,
    headers: { 'content-type': 'text/plain; charset=utf-8', title: titleOf(m).render().replace(/[^\x20-\x7e]/g, '?'), priority: severityOf(m) === 'failure' ? '4' : '3', tags: m.event },
    body: fit(lines(m), NTFY),
  }),
  // Gotify: POST <server>/message?token=<app token> (the token in the configured URL). Plain text said outright
  // (gotify/website docs/msgextras.md: client::display contentType text/plain, which Gotify advises for text from
  // outside); Gotify documents no length limit.
  gotify: (m, url) =>
    json(url, { title: titleOf(m).render(), message: lines(m), priority: severityOf(m) === 'failure' ? 8 : 5, extras: { 'client::display': { contentType: 'text/plain' } } }),
  // Apprise API: POST <api>/notify/<key> (stateful) or /notify with "urls" in the URL's own query. `format: text`
  // says the body is plain text (Apprise escapes it for the services that take HTML); Apprise cuts or splits
  // for each service it fans out to (each plugin's body_maxlen), so nothing is cut here.
  apprise: (m, url) => json(url, { title: titleOf(m).render(), body: lines(m), type: severityOf(m), format: 'text' }),
};
