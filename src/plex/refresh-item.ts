// Refreshes the metadata of the Plex item(s) holding a file: the sections whose folders hold it are asked for the
// item by file path, and each item found gets PUT /library/metadata/{ratingKey}/refresh.
import { isInside } from '../paths/folder.js';
import { lookupCandidates, type ItemRefreshResult } from '../targets/item-refresh.js';
import { PlexError, type PlexApi, type PlexSection } from './api.js';
import { lookupFileViaApi } from './confirm.js';

/**
 * `file` is in this Plex's own path form. A sidecar (subtitle, audio track) is looked up by the video beside it.
 * Sections may be passed in when the caller has them cached.
 */
export async function refreshPlexItems(api: PlexApi, file: string, known?: PlexSection[]): Promise<ItemRefreshResult> {
  try {
    const sections = known ?? (await api.sections());
    const owners = sections.filter((s) => s.locations.some((l) => isInside(file, l)));
    if (owners.length === 0) return { status: 'not-found', detail: `'${file}' is in no Plex section` };
    const keys: string[] = [];
    for (const candidate of lookupCandidates(file)) {
      for (const s of owners) {
        const found = await lookupFileViaApi(api, s.id, candidate);
        if (found.found === true && found.ratingKey && !keys.includes(found.ratingKey)) keys.push(found.ratingKey);
      }
      if (keys.length) break;
    }
    if (keys.length === 0) return { status: 'not-found', detail: `no Plex item holds '${file}' (${owners.map((s) => s.title).join(', ')})` };
    for (const key of keys) {
      const res = await api.request('PUT', `/library/metadata/${encodeURIComponent(key)}/refresh`);
      await res.body?.cancel();
    }
    return { status: 'refreshed', items: keys, detail: `refreshed item ${keys.join(', ')}` };
  } catch (err) {
    if (err instanceof PlexError) {
      const down = err.status === 0 || err.status === 401 || err.status === 403 || err.status >= 500;
      return { status: 'retry', error: err.message, targetDown: down };
    }
    return { status: 'retry', error: (err as Error).message, targetDown: false };
  }
}
