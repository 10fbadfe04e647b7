// The last resort for confirming files, used only when neither the notification socket nor the library database
// can tell: a section's items of one type, newest first, one small page at a time
// (`/library/sections/{id}/all?type=1|4&sort=addedAt:desc` with X-Plex-Container-Start/Size, as Plex's own web
// client pages its lists). A new file is among the items added since its scan was sent, so the pages are read back
// to then (each item's `addedAt`, unix seconds: python-plexapi@9dd520d plexapi/video.py L37); the section is
// never read whole, and the undocumented `?file=` filter is not used.
import { PLEX_RECENT_PAGE } from '../../http/answer-caps.js';
import { ApiRefusal } from '../../http/api-call.js';
import type { PlexApi } from './api.js';

/** Plex's metadata type of the items that hold files, by section type (python-plexapi plexapi/utils.py). */
const ITEM_TYPE: Record<string, string> = { movie: '1', show: '4', artist: '10', photo: '13' };

export interface RecentSection {
  id: string;
  /** The section's type (movie, show, …); unknown for tickets stored before it was kept: movies and episodes both asked. */
  type?: string;
}

export interface FoundItem {
  ratingKey: string;
  parentRatingKey?: string;
}

/** Items per page: 50 keep one answer to a few KB. */
const PAGE_SIZE = 50;
/** Pages read per section and type whatever `addedSince` says. */
const FIRST_PAGES = 4;
/** Plex's clock and ours may differ, and addedAt counts whole seconds: items up to a minute older are read too. */
export const ADDED_SLACK_MS = 60_000;
/** Pages read at most when going back to `addedSince`: 5,000 items. */
const MAX_PAGES_BACK = 100;

/**
 * Which of `files` are among the items most recently added to `sections`. Rejects when Plex does not answer;
 * a type the section does not hold answers an empty page, which ends that type. `addedSince`: when the earliest of
 * the files' scans was sent (ms): pages are read on until one reaches items added before then, less ADDED_SLACK_MS.
 * After an outage the relay sends hundreds of scans in seconds, and a scan whose end the socket missed is judged
 * after all of them: its file is then thousands of items down the list.
 */
export async function findRecentlyAdded(api: PlexApi, sections: RecentSection[], files: ReadonlySet<string>, addedSince?: number): Promise<Map<string, FoundItem>> {
  const oldest = addedSince === undefined ? undefined : (addedSince - ADDED_SLACK_MS) / 1000;
  const found = new Map<string, FoundItem>();
  for (const section of sections) {
    const types = section.type ? [ITEM_TYPE[section.type]].filter(Boolean) : ['1', '4'];
    for (const type of types) {
      for (let page = 0; page < MAX_PAGES_BACK && found.size < files.size; page++) {
        const items = await pageOf(api, section.id, type, page * PAGE_SIZE, PAGE_SIZE);
        for (const item of items) {
          for (const f of item.files) if (files.has(f)) found.set(f, { ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey });
        }
        if (items.length < PAGE_SIZE) break;
        // Past the first pages, read on only while the page's oldest item was added after the earliest scan was sent.
        const last = items[items.length - 1].addedAt;
        if (page + 1 >= FIRST_PAGES && (oldest === undefined || last === undefined || last < oldest)) break;
      }
    }
  }
  return found;
}

async function pageOf(api: PlexApi, section: string, type: string, start: number, size: number): Promise<{ ratingKey: string; parentRatingKey?: string; addedAt?: number; files: string[] }[]> {
  let body: unknown;
  try {
    const res = await api.request('GET', `/library/sections/${encodeURIComponent(section)}/all`, PLEX_RECENT_PAGE, {
      type,
      sort: 'addedAt:desc',
      'X-Plex-Container-Start': String(start),
      'X-Plex-Container-Size': String(size),
    });
    body = await res.json().catch(() => undefined);
  } catch (err) {
    // A section that does not hold this type may refuse it: nothing of this type to find there.
    if (err instanceof ApiRefusal && err.status === 400) return [];
    throw err;
  }
  const list = (body as { MediaContainer?: { Metadata?: unknown } } | undefined)?.MediaContainer?.Metadata;
  if (!Array.isArray(list)) return [];
  return list.map((raw) => {
    const item = raw as { ratingKey?: unknown; parentRatingKey?: unknown; addedAt?: unknown; Media?: { Part?: { file?: unknown }[] }[] };
    const files = (item.Media ?? []).flatMap((m) => (m.Part ?? []).flatMap((p) => (typeof p.file === 'string' ? [p.file] : [])));
    const addedAt = typeof item.addedAt === 'number' ? item.addedAt : undefined;
    return { ratingKey: String(item.ratingKey ?? ''), parentRatingKey: item.parentRatingKey === undefined ? undefined : String(item.parentRatingKey), addedAt, files };
  });
}
