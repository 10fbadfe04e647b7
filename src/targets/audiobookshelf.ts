// The "audiobookshelf" kind: finds the library holding the folder (GET /api/libraries) and tells its watcher that
// the file changed (POST /api/watcher/update), the way Audiobookshelf's own folder watcher would.
import { ACKNOWLEDGEMENT, LIBRARY_LIST, SERVER_STATUS } from '../http/answer-caps.js';
import { apiCaller, entryUrlKey } from '../http/api-call.js';
import { systemClock } from '../clock.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import type { ScanContext, ScanOutcome } from '../scan.js';
import { httpOptions, needsToken, needsUrl, targetKind, type Capabilities, type HttpTargetOptions } from './kind.js';
import { knownLocations, LibraryList } from './library-list.js';

export function audiobookshelfTarget(opts: HttpTargetOptions): Capabilities {
  const who = `audiobookshelf '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: opts.urlKey ?? entryUrlKey(opts.name),
    headers: { Authorization: `Bearer ${opts.token}` },
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    clock: opts.clock,
    logger: opts.logger,
    authHint: 'check TOKEN (an API token of an Audiobookshelf admin)',
  });
  const list = new LibraryList(async () => {
    const body = await api.json<{ libraries?: unknown }>('GET', '/api/libraries', { cap: LIBRARY_LIST });
    return (Array.isArray(body?.libraries) ? body.libraries : []).flatMap((raw) => {
      const lib = raw as { id?: unknown; name?: unknown; folders?: { fullPath?: unknown }[] };
      if (typeof lib.id !== 'string') return [];
      const locations = (Array.isArray(lib.folders) ? lib.folders : []).map((f) => f?.fullPath).filter((p): p is string => typeof p === 'string' && p !== '');
      return [{ id: lib.id, title: typeof lib.name === 'string' ? lib.name : lib.id, locations }];
    });
  }, opts.clock ?? systemClock);

  return {
    kind: 'audiobookshelf',
    libraries: (ask) => list.get(ask),
    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      try {
        const found = await list.holding(path);
        if (found.holders.length === 0) return { status: 'unmatched', detail: `'${path}' is in no library of ${who} (known folders: ${knownLocations(found.all)})` };
        const library = found.holders[0];
        // The watcher wants the file that changed; a folder request names the folder itself.
        await api.call('POST', '/api/watcher/update', { cap: ACKNOWLEDGEMENT, body: { libraryId: library.id, path: context.file ?? path, type: context.deleted ? 'unlink' : 'add' } });
        return { status: 'scanned', detail: library.title, sections: [library.id] };
      } catch (err) {
        return api.retry(err);
      }
    },
    available: () => api.answers('GET', '/ping', { cap: SERVER_STATUS }),
  };
}

export const audiobookshelf = targetKind({
  keys: () => ({}),
  requires: { URL: needsUrl('audiobookshelf'), TOKEN: needsToken('audiobookshelf') },
  build: (entry, ctx) => audiobookshelfTarget(httpOptions(entry, ctx)),
});
