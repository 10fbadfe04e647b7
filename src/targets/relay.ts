// The "relay" target: hands the folder to another scanrelay or an autoscan through its manual trigger
// (POST /triggers/manual?dir=<folder>, HTTP Basic auth), for chaining across machines.
import { trimTrailingSeparator } from '../paths/folder.js';
import { apiCaller, entryUrlKey } from './api-call.js';
import type { ScanOutcome, Target } from '../scan.js';

export interface RelayTargetOptions {
  name: string;
  url: string;
  user?: string;
  password?: string;
  pauseMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function relayTarget(opts: RelayTargetOptions): Target {
  const who = `relay '${opts.name}'`;
  const auth = opts.user && opts.password ? `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString('base64')}` : undefined;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: entryUrlKey(opts.name),
    headers: auth ? { Authorization: auth } : {},
    secrets: [opts.password ?? '', auth ?? ''],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    authHint: "check USER and PASSWORD (the other instance's AUTOSCAN user, or autoscan's authentication block)",
  });
  return {
    name: opts.name,
    kind: 'relay',
    pauseMs: opts.pauseMs ?? 0,
    async scan(folder: string): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        await api.call('POST', '/triggers/manual', { query: { dir: path } });
        return { status: 'scanned', detail: `handed to ${new URL(opts.url).host}` };
      } catch (err) {
        return api.retry(err);
      }
    },
    async available() {
      try {
        await api.call('HEAD', '/triggers/manual');
        return { ok: true };
      } catch (err) {
        return { ok: false, error: api.scrub((err as Error).message) };
      }
    },
  };
}
