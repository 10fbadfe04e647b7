// The "relay" kind: hands the folder to another scanrelay or an autoscan through its manual trigger
// (POST /triggers/manual?dir=<folder>, HTTP Basic auth), for chaining across machines. It takes any folder.
import { ACKNOWLEDGEMENT, SERVER_STATUS } from '../http/answer-caps.js';
import { apiCaller, entryUrlKey } from '../http/api-call.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { optional, text } from '../value-rules.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import type { ScanOutcome } from '../scan.js';
import { needsUrl, targetKind, type Capabilities } from './kind.js';

export interface RelayTargetOptions {
  name: string;
  url: string;
  user?: string;
  password?: string;
  urlKey?: string;
  timeoutMs?: number;
  clock?: Clock;
  fetch?: typeof fetch;
  logger?: Logger;
}

export function relayTarget(opts: RelayTargetOptions): Capabilities {
  const who = `relay '${opts.name}'`;
  const auth = opts.user && opts.password ? `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString('base64')}` : undefined;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: opts.urlKey ?? entryUrlKey(opts.name),
    headers: auth ? { Authorization: auth } : {},
    secrets: [opts.password ?? '', auth ?? ''],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    clock: opts.clock,
    logger: opts.logger,
    authHint: "check USER and PASSWORD (the other instance's AUTOSCAN user, or autoscan's authentication block)",
  });
  return {
    kind: 'relay',
    async scan(folder: string): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        await api.call('POST', '/triggers/manual', { cap: ACKNOWLEDGEMENT, query: { dir: path } });
        return { status: 'scanned', detail: `handed to ${new URL(opts.url).host}` };
      } catch (err) {
        return api.retry(err);
      }
    },
    available: () => api.answers('HEAD', '/triggers/manual', { cap: SERVER_STATUS }),
  };
}

export const relay = targetKind({
  keys: () => ({
    /** The user name of the other instance's /triggers/ routes (Basic auth). */
    USER: optional(text()),
    /** Its password. */
    PASSWORD: optional(text()),
  }),
  requires: { URL: needsUrl('relay') },
  refine(entry, ctx) {
    if (!!entry.USER !== !!entry.PASSWORD) {
      ctx.addIssue({ code: 'custom', path: [entry.USER ? 'PASSWORD' : 'USER'], message: 'both USER and PASSWORD (Basic auth), or neither' });
    }
  },
  build: (entry, ctx) =>
    relayTarget({ name: entry.NAME, url: entry.URL ?? '', user: entry.USER, password: entry.PASSWORD, urlKey: ctx.urlKey, clock: ctx.clock, fetch: ctx.fetch, logger: ctx.logger }),
});
