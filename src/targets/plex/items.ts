// The Plex item(s) holding a file, and their refresh: the sections whose folders hold the file are asked for the
// item by file path (a sidecar by the video beside it), and each item found gets PUT /library/metadata/{key}/refresh.
import { ACKNOWLEDGEMENT } from '../../http/answer-caps.js';
import { lookupCandidates } from '../../paths/sidecar.js';
import type { ItemLocation, Library } from '../../scan.js';
import type { PlexApi } from './api.js';
import { lookupFileViaApi } from './confirm.js';

/** `file` is in this Plex's own path form; `sections`, the sections holding it. Rejects when Plex does not answer. */
export async function locatePlexItems(api: PlexApi, file: string, sections: Library[]): Promise<ItemLocation> {
  if (sections.length === 0) return { status: 'not-found', detail: `'${file}' is in no Plex section` };
  const keys: string[] = [];
  for (const candidate of lookupCandidates(file)) {
    for (const s of sections) {
      const found = await lookupFileViaApi(api, s.id, candidate);
      if (found.found === true && found.ratingKey && !keys.includes(found.ratingKey)) keys.push(found.ratingKey);
    }
    if (keys.length) break;
  }
  const where = sections.map((s) => s.title).join(', ');
  if (keys.length === 0) return { status: 'not-found', detail: `no Plex item holds '${file}' (${where})` };
  return { status: 'found', items: keys, detail: `item ${keys.join(', ')} in ${where}` };
}

export async function refreshPlexItem(api: PlexApi, ratingKey: string): Promise<void> {
  const res = await api.request('PUT', `/library/metadata/${encodeURIComponent(ratingKey)}/refresh`, ACKNOWLEDGEMENT);
  await res.body?.cancel();
}
