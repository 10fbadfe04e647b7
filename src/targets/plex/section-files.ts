// Every file of one Plex section's items, for the reconcile (src/reconcile/): GET /library/sections/{id}/all with
// the section's leaf type (movies 1, episodes 4, tracks 10: python-plexapi@a8d051f plexapi/utils.py SEARCHTYPES),
// paged by X-Plex-Container-Start/-Size and `totalSize` as python-plexapi's PlexObject.fetchItems pages
// (plexapi/base.py), each item's files in Media[].Part[].file (python-plexapi plexapi/media.py L105-149, MediaPart.file).
import { PLEX_ITEMS_PAGE } from '../../http/answer-caps.js';
import type { Library } from '../../scan.js';
import type { PlexApi } from './api.js';

/** The items that hold files, by section type; a photo section has no app to compare with. */
export const LEAF_TYPE: Record<string, string> = { movie: '1', show: '4', artist: '10' };

/** Items per page: a page of episodes stays well under its cap. */
export const SECTION_PAGE = 500;

interface Page {
  MediaContainer?: { size?: unknown; totalSize?: unknown; Metadata?: { Media?: { Part?: { file?: unknown }[] }[] }[] };
}

/** The files of a section's items, one page at a time; nothing for a section of no leaf type scanrelay knows. */
export async function* sectionFiles(api: PlexApi, section: Library & { sectionType?: string }, pageSize = SECTION_PAGE): AsyncGenerator<string[]> {
  const type = LEAF_TYPE[section.sectionType ?? ''];
  if (!type) return;
  for (let start = 0; ; start += pageSize) {
    const page = await api.json<Page>(`/library/sections/${encodeURIComponent(section.id)}/all`, PLEX_ITEMS_PAGE, {
      type,
      'X-Plex-Container-Start': String(start),
      'X-Plex-Container-Size': String(pageSize),
    });
    const items = Array.isArray(page?.MediaContainer?.Metadata) ? page.MediaContainer.Metadata : [];
    const files: string[] = [];
    for (const item of items) for (const media of Array.isArray(item?.Media) ? item.Media : []) for (const part of Array.isArray(media?.Part) ? media.Part : []) if (typeof part?.file === 'string') files.push(part.file);
    yield files;
    const total = typeof page?.MediaContainer?.totalSize === 'number' ? page.MediaContainer.totalSize : start + items.length;
    if (items.length < pageSize || start + items.length >= total) return;
  }
}
