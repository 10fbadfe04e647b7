// Refreshes the metadata of the Plex item(s) holding a file: the sections whose folders hold it are asked for the
// item by file path, and each item found gets PUT /library/metadata/{ratingKey}/refresh.
import { lookupCandidates } from '../paths/sidecar.js';
import type { ItemRefreshResult, Library } from '../scan.js';
import type { PlexApi } from './api.js';
import { lookupFileViaApi } from './confirm.js';

/** `file` is in this Plex's own path form; `sections`, the sections holding it. A sidecar is looked up by the video beside it. */
export async function refreshPlexItems(api: PlexApi, file: string, sections: Library[]): Promise<ItemRefreshResult> {
  try {
    if (sections.length === 0) return { status: 'not-found', detail: `'${file}' is in no Plex section` };
    const keys: string[] = [];
    for (const candidate of lookupCandidates(file)) {
      for (const s of sections) {
        const found = await lookupFileViaApi(api, s.id, candidate);
        if (found.found === true && found.ratingKey && !keys.includes(found.ratingKey)) keys.push(found.ratingKey);
      }
      if (keys.length) break;
    }
    if (keys.length === 0) return { status: 'not-found', detail: `no Plex item holds '${file}' (${sections.map((s) => s.title).join(', ')})` };
    for (const key of keys) {
      const res = await api.request('PUT', `/library/metadata/${encodeURIComponent(key)}/refresh`);
      await res.body?.cancel();
    }
    return { status: 'refreshed', items: keys, detail: `refreshed item ${keys.join(', ')}` };
  } catch (err) {
    return api.itemRetry(err);
  }
}
