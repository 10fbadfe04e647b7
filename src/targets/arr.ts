// The "sonarr" and "radarr" kinds: the series or movie whose folder holds the path is rescanned
// (POST /api/v3/command RescanSeries / RescanMovie), so the app notices files it did not import itself.
import { ACKNOWLEDGEMENT, ARR_LIBRARY, SERVER_STATUS } from '../http/answer-caps.js';
import { apiCaller, entryUrlKey } from '../http/api-call.js';
import { systemClock } from '../clock.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import type { ScanOutcome } from '../scan.js';
import { httpOptions, needsToken, needsUrl, targetKind, type Capabilities, type HttpTargetOptions } from './kind.js';
import { LibraryList } from './library-list.js';

interface ArrRescan {
  /** Lists every item with its folder. */
  listPath: string;
  command: string;
  idKey: string;
  noun: string;
}

const rescans: Record<'sonarr' | 'radarr', ArrRescan> = {
  sonarr: { listPath: '/api/v3/series', command: 'RescanSeries', idKey: 'seriesId', noun: 'series' },
  radarr: { listPath: '/api/v3/movie', command: 'RescanMovie', idKey: 'movieId', noun: 'movie' },
};

/** Each series or movie is a "library" of one folder: the folders the app serves. */
export function arrTarget(kind: 'sonarr' | 'radarr', opts: HttpTargetOptions): Capabilities {
  const rescan = rescans[kind];
  const who = `${kind} '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: opts.urlKey ?? entryUrlKey(opts.name),
    headers: { 'X-Api-Key': opts.token },
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    clock: opts.clock,
    logger: opts.logger,
    authHint: `check TOKEN (${kind}'s API key, Settings > General)`,
  });
  const list = new LibraryList(async () => {
    // Read in pieces, of each item its id, title and folder: the whole library list may be some 100 MB.
    const body = await api.list('GET', rescan.listPath, {
      cap: ARR_LIBRARY,
      keep: (raw) => {
        const item = (raw ?? {}) as { id?: unknown; title?: unknown; path?: unknown };
        if (typeof item.id !== 'number' || typeof item.path !== 'string' || item.path === '') return undefined;
        return { id: String(item.id), title: typeof item.title === 'string' ? item.title : String(item.id), locations: [item.path] };
      },
    });
    return Array.isArray(body) ? (body as { id: string; title: string; locations: string[] }[]) : [];
  }, opts.clock ?? systemClock);

  return {
    kind,
    libraries: (ask) => list.get(ask),
    async scan(folder: string): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        const { holders } = await list.holding(path);
        if (holders.length === 0) return { status: 'unmatched', detail: `'${path}' is in no ${rescan.noun} folder of ${who}` };
        const item = holders[0];
        await api.call('POST', '/api/v3/command', { cap: ACKNOWLEDGEMENT, body: { name: rescan.command, [rescan.idKey]: Number(item.id) } });
        return { status: 'scanned', detail: `${rescan.command} ${item.title}`, sections: [item.id] };
      } catch (err) {
        return api.retry(err);
      }
    },
    available: () => api.answers('GET', '/api/v3/system/status', { cap: SERVER_STATUS }),
  };
}

function arrKind(kind: 'sonarr' | 'radarr') {
  return targetKind({
    keys: () => ({}),
    requires: { URL: needsUrl(kind), TOKEN: needsToken(kind) },
    build: (entry, ctx) => arrTarget(kind, httpOptions(entry, ctx)),
  });
}

export const sonarr = arrKind('sonarr');
export const radarr = arrKind('radarr');
