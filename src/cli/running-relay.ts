// `scanrelay connect`'s last step: the relay running on this machine with this config reads its ARR entries again
// (POST /api/<SERVER_PASS>/arr/reload), so an app just added is caught up and on /health without a restart. One
// line says what happened, or what to do.
import type { Config } from '../config/schema.js';
import { httpFetch } from '../http/fetch.js';
import { typed } from '../version.js';

type RelayConfig = Pick<Config, 'SERVER_IP' | 'SERVER_PORT' | 'SERVER_PASS' | 'SERVER_BASE_PATH'>;

/** Where this config's relay listens, as seen from this machine. */
export function localRelayUrl(config: RelayConfig): string {
  const ip = config.SERVER_IP;
  const host = ip === '' || ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip.includes(':') ? `[${ip}]` : ip;
  return `http://${host}:${config.SERVER_PORT}${config.SERVER_BASE_PATH}`;
}

/** Asks the running relay to read ARR again; never throws. */
export async function reloadRunningRelay(config: RelayConfig, fetch = httpFetch): Promise<string> {
  const base = localRelayUrl(config);
  let res: Response;
  try {
    res = await fetch(`${base}/api/${encodeURIComponent(config.SERVER_PASS)}/arr/reload`, { method: 'POST', signal: AbortSignal.timeout(10_000) });
  } catch {
    return `No relay answers at ${base}: when \`${typed('server')}\` starts, it reads these ARR entries.`;
  }
  const body = (await res.json().catch(() => ({}))) as { added?: string[]; changed?: string[]; removed?: string[]; unchanged?: string[]; error?: string };
  if (res.status === 200) {
    const said = [
      body.added?.length ? `now reads ${body.added.join(', ')}` : '',
      body.changed?.length ? `started ${body.changed.join(', ')} again with the new entry` : '',
      body.removed?.length ? `stopped reading ${body.removed.join(', ')}` : '',
    ].filter(Boolean);
    return `The running relay at ${base} read ARR again: ${said.join('; ') || `it already reads ${body.unchanged?.join(', ') || 'no app'}`} (/health lists each app).`;
  }
  if (res.status === 422) return `The running relay at ${base} could not read the config again: ${body.error ?? res.statusText}`;
  // 401: another relay (another SERVER_PASS) holds the port; 404: a relay from before this call existed.
  return `The relay at ${base} did not read ARR again (HTTP ${res.status}): restart it (for instance \`sudo systemctl restart scanrelay\` or \`docker restart scanrelay\`) so that it reads these entries.`;
}
