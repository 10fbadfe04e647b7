// The "sonarr" and "radarr" targets: the series or movie whose folder holds the path is rescanned
// (POST /api/v3/command RescanSeries / RescanMovie), so the app notices files it did not import itself.
import { systemClock } from '../clock.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import { apiCaller, entryUrlKey } from './api-call.js';
import type { HttpTargetOptions } from './audiobookshelf.js';
import { OwnerList } from './owner-list.js';
import type { ScanOutcome, Target } from '../scan.js';

interface ArrFlavour {
  kind: 'sonarr' | 'radarr';
  /** Lists every item with its folder. */
  listPath: string;
  command: string;
  idKey: string;
  noun: string;
}

const flavours: Record<'sonarr' | 'radarr', ArrFlavour> = {
  sonarr: { kind: 'sonarr', listPath: '/api/v3/series', command: 'RescanSeries', idKey: 'seriesId', noun: 'series' },
  radarr: { kind: 'radarr', listPath: '/api/v3/movie', command: 'RescanMovie', idKey: 'movieId', noun: 'movie' },
};

export function arrTarget(kind: 'sonarr' | 'radarr', opts: HttpTargetOptions): Target {
  const flavour = flavours[kind];
  const who = `${kind} '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: entryUrlKey(opts.name),
    headers: { 'X-Api-Key': opts.token },
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    authHint: `check TOKEN (${kind}'s API key, Settings > General)`,
  });
  const items = new OwnerList<{ id: number; title: string }>({
    clock: opts.clock ?? systemClock,
    load: async () => {
      const body = await api.json<unknown>('GET', flavour.listPath);
      return (Array.isArray(body) ? body : []).flatMap((raw) => {
        const item = raw as { id?: unknown; title?: unknown; path?: unknown };
        if (typeof item.id !== 'number' || typeof item.path !== 'string' || item.path === '') return [];
        return [{ item: { id: item.id, title: typeof item.title === 'string' ? item.title : String(item.id) }, locations: [item.path] }];
      });
    },
  });

  return {
    name: opts.name,
    kind,
    pauseMs: opts.pauseMs ?? 0,
    async scan(folder: string): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        const { owners } = await items.holding(path);
        if (owners.length === 0) return { status: 'unmatched', detail: `'${path}' is in no ${flavour.noun} folder of ${who}` };
        const item = owners[0];
        await api.call('POST', '/api/v3/command', { body: { name: flavour.command, [flavour.idKey]: item.id } });
        return { status: 'scanned', detail: `${flavour.command} ${item.title}` };
      } catch (err) {
        return api.retry(err);
      }
    },
    async available() {
      try {
        await api.call('GET', '/api/v3/system/status');
        return { ok: true };
      } catch (err) {
        return { ok: false, error: api.scrub((err as Error).message) };
      }
    },
  };
}
