// The "audiobookshelf" target: finds the library holding the folder (GET /api/libraries) and tells its watcher
// that the file changed (POST /api/watcher/update), the way Audiobookshelf's own folder watcher would.
import { systemClock, type Clock } from '../clock.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import { apiCaller, entryUrlKey } from './api-call.js';
import { OwnerList } from './owner-list.js';
import type { ScanContext, ScanOutcome, Target } from '../scan.js';

export interface HttpTargetOptions {
  name: string;
  url: string;
  token: string;
  pauseMs?: number;
  timeoutMs?: number;
  clock?: Clock;
  fetch?: typeof fetch;
}

interface AbsLibrary {
  id: string;
  name: string;
}

export function audiobookshelfTarget(opts: HttpTargetOptions): Target {
  const who = `audiobookshelf '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: entryUrlKey(opts.name),
    headers: { Authorization: `Bearer ${opts.token}` },
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    authHint: 'check TOKEN (an API token of an Audiobookshelf admin)',
  });
  const libraries = new OwnerList<AbsLibrary>({
    clock: opts.clock ?? systemClock,
    load: async () => {
      const body = await api.json<{ libraries?: unknown }>('GET', '/api/libraries');
      const list = Array.isArray(body?.libraries) ? body.libraries : [];
      return list.flatMap((raw) => {
        const lib = raw as { id?: unknown; name?: unknown; folders?: { fullPath?: unknown }[] };
        if (typeof lib.id !== 'string') return [];
        const locations = (Array.isArray(lib.folders) ? lib.folders : []).map((f) => f?.fullPath).filter((p): p is string => typeof p === 'string' && p !== '');
        return [{ item: { id: lib.id, name: typeof lib.name === 'string' ? lib.name : lib.id }, locations }];
      });
    },
  });

  return {
    name: opts.name,
    kind: 'audiobookshelf',
    pauseMs: opts.pauseMs ?? 0,
    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        const { owners, known } = await libraries.holding(path);
        if (owners.length === 0) {
          return { status: 'unmatched', detail: `'${path}' is in no library of ${who} (known folders: ${known.length ? known.join(', ') : 'none'})` };
        }
        const library = owners[0];
        // The watcher wants the file that changed; a folder request names the folder itself.
        await api.call('POST', '/api/watcher/update', {
          body: { libraryId: library.id, path: context.file ?? path, type: context.deleted ? 'unlink' : 'add' },
        });
        return { status: 'scanned', detail: library.name };
      } catch (err) {
        return api.retry(err);
      }
    },
    async available() {
      try {
        await api.call('GET', '/ping');
        return { ok: true };
      } catch (err) {
        return { ok: false, error: api.scrub((err as Error).message) };
      }
    },
  };
}
