// Refreshes the metadata of the Jellyfin or Emby item(s) holding a file: the library holding it is paged through
// (GET /Items with Fields=Path) for the item whose Path is the file, which then gets POST /Items/{id}/Refresh.
import { isInside } from '../paths/folder.js';
import { apiCaller, entryUrlKey } from './api-call.js';
import { lookupCandidates, type ItemRefreshResult } from './item-refresh.js';
import type { MediaBrowserFlavour } from './mediabrowser.js';

export interface MediaBrowserItemOptions {
  name: string;
  url: string;
  token: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Items per page while looking for the file. */
  pageSize?: number;
}

interface LibraryRoot {
  id: string;
  name: string;
  locations: string[];
}

/** Libraries with the ids /Items takes as ParentId: Jellyfin's ItemId, Emby's Id. */
function libraryRoots(body: unknown): LibraryRoot[] {
  if (!Array.isArray(body)) return [];
  return body.flatMap((raw) => {
    const lib = raw as { Name?: unknown; ItemId?: unknown; Id?: unknown; Locations?: unknown; SubFolders?: { Path?: unknown }[] };
    const id = typeof lib.ItemId === 'string' ? lib.ItemId : typeof lib.Id === 'string' ? lib.Id : undefined;
    if (!id) return [];
    const locations = Array.isArray(lib.Locations)
      ? lib.Locations.filter((l): l is string => typeof l === 'string')
      : (Array.isArray(lib.SubFolders) ? lib.SubFolders : []).map((f) => f?.Path).filter((p): p is string => typeof p === 'string');
    return [{ id, name: typeof lib.Name === 'string' ? lib.Name : id, locations }];
  });
}

export async function refreshMediaBrowserItems(flavour: MediaBrowserFlavour, opts: MediaBrowserItemOptions, file: string): Promise<ItemRefreshResult> {
  const who = `${flavour.kind} '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: entryUrlKey(opts.name),
    headers: flavour.authHeaders(opts.token),
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    authHint: 'check TOKEN (an admin API key)',
  });
  const pageSize = opts.pageSize ?? 500;
  try {
    const owners = libraryRoots(await api.json('GET', flavour.librariesPath)).filter((l) => l.locations.some((loc) => isInside(file, loc)));
    if (owners.length === 0) return { status: 'not-found', detail: `'${file}' is in no library of ${who}` };
    const wanted = lookupCandidates(file);
    const found = new Map<string, number>();
    for (const lib of owners) {
      for (let start = 0; ; start += pageSize) {
        const page = await api.json<{ Items?: { Id?: unknown; Path?: unknown }[]; TotalRecordCount?: unknown }>('GET', '/Items', {
          query: { ParentId: lib.id, Recursive: 'true', IsFolder: 'false', Fields: 'Path', StartIndex: String(start), Limit: String(pageSize) },
        });
        const items = Array.isArray(page?.Items) ? page.Items : [];
        for (const item of items) {
          const rank = typeof item.Path === 'string' ? wanted.indexOf(item.Path) : -1;
          if (rank >= 0 && typeof item.Id === 'string' && !found.has(item.Id)) found.set(item.Id, rank);
        }
        const total = typeof page?.TotalRecordCount === 'number' ? page.TotalRecordCount : start + items.length;
        if (items.length < pageSize || start + items.length >= total) break;
      }
    }
    if (found.size === 0) return { status: 'not-found', detail: `no item of ${who} holds '${file}' (${owners.map((l) => l.name).join(', ')})` };
    // The file itself before a video guessed from a sidecar's name.
    const best = Math.min(...found.values());
    const ids = [...found].filter(([, rank]) => rank === best).map(([id]) => id);
    for (const id of ids) {
      await api.call('POST', `/Items/${encodeURIComponent(id)}/Refresh`, {
        query: { MetadataRefreshMode: 'FullRefresh', ImageRefreshMode: 'Default', ReplaceAllMetadata: 'false', ReplaceAllImages: 'false' },
      });
    }
    return { status: 'refreshed', items: ids, detail: `refreshed item ${ids.join(', ')}` };
  } catch (err) {
    const outcome = api.retry(err);
    // An item refresh reports a refused token as the server's, as it did before scans told the two apart.
    if (outcome.status === 'retry') return { status: 'retry', error: outcome.error, targetDown: outcome.targetDown || outcome.tokenRefused === true };
    return { status: 'retry', error: String(err), targetDown: false };
  }
}
