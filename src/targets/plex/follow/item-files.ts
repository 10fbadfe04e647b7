// The files of one Plex item: GET /library/metadata/{ratingKey} → Metadata[0].Media[].Part[].file (the absolute
// path as Plex sees it; python-plexapi plexapi/media.py MediaPart.file). One small answer per item, where the
// undocumented `/library/sections/{id}/all?file=` may answer with a whole section.
import { PLEX_ITEM } from '../../../http/answer-caps.js';
import { ANSWER_TOO_LARGE, ApiRefusal } from '../../../http/api-call.js';
import type { PlexApi } from '../api.js';
import { holdsFiles, type TouchedItem } from './scan-items.js';

/** A GET on the Plex server (token, timeout and redirects are the caller's): the status and the JSON body. */
export type PlexGet = (path: string) => Promise<{ status: number; body?: unknown }>;

export interface ItemFiles {
  ratingKey: string;
  type?: string;
  parentRatingKey?: string;
  sectionId?: string;
  files: string[];
}

/** The item's files, or 'gone' when Plex no longer has it (deleted between its timeline entry and now). */
export async function itemFiles(get: PlexGet, ratingKey: string): Promise<ItemFiles | 'gone'> {
  const res = await get(`/library/metadata/${encodeURIComponent(ratingKey)}`);
  if (res.status === 404) return 'gone';
  if (res.status < 200 || res.status >= 300) throw new Error(`GET /library/metadata/${ratingKey} answered ${res.status}`);
  const items = (res.body as { MediaContainer?: { Metadata?: unknown } } | undefined)?.MediaContainer?.Metadata;
  const item = (Array.isArray(items) ? items[0] : undefined) as Record<string, unknown> | undefined;
  if (!item) return 'gone';
  const media = Array.isArray(item.Media) ? (item.Media as { Part?: unknown }[]) : [];
  const files = media.flatMap((m) => (Array.isArray(m.Part) ? (m.Part as { file?: unknown }[]) : [])).flatMap((p) => (typeof p.file === 'string' ? [p.file] : []));
  const s = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return { ratingKey: s(item.ratingKey) ?? ratingKey, type: s(item.type), parentRatingKey: s(item.parentRatingKey), sectionId: s(item.librarySectionID), files };
}

/** Answers already asked for, by ratingKey: a scan's items are read once however many follow-ups look at it. */
export type ItemCache = Map<string, Promise<ItemFiles | 'gone'>>;

/**
 * The delivered files scans put in the library, with the item holding each: the files of the items they created
 * or updated, matched against `delivered` (a file not in the answer was not touched by these scans; an unchanged
 * file makes no timeline entry, so absence here is not proof of absence). In the order given (newest scan first,
 * for a follow-up that looks back): the first scan's items are read first, and the others' only if a delivered file is still not found,
 * `concurrency` at a time across all of them, so a file the newest scan holds costs its items' reads whatever
 * number of older scans follow. An item several scans touched is read once, as the first scan that names it.
 * A failed read throws, once the others are done, only when a delivered file is still not found.
 */
export async function itemsOfScans(
  get: PlexGet,
  scans: readonly { touched: readonly TouchedItem[]; items?: ItemCache }[],
  delivered: ReadonlySet<string>,
  concurrency = 8,
): Promise<Map<string, ItemFiles>> {
  const found = new Map<string, ItemFiles>();
  const seen = new Set<string>();
  // Taken one at a time as the lookups go, so a file found early leaves the older scans' items untouched.
  function* itemsOf(part: typeof scans): Generator<{ ratingKey: string; cache?: ItemCache }> {
    for (const scan of part) {
      for (const item of scan.touched) {
        if (!holdsFiles(item) || seen.has(item.ratingKey)) continue;
        seen.add(item.ratingKey);
        yield { ratingKey: item.ratingKey, cache: scan.items };
      }
    }
  }
  let failed: { err: unknown } | undefined;
  const read = async (part: typeof scans) => {
    const items = itemsOf(part);
    const worker = async () => {
      while (found.size < delivered.size) {
        const next = items.next();
        if (next.done) return;
        const { ratingKey, cache } = next.value;
        let asked = cache?.get(ratingKey);
        if (!asked) {
          asked = itemFiles(get, ratingKey);
          cache?.set(ratingKey, asked);
          // A failed read is not remembered: the next look asks again.
          asked.catch(() => cache?.delete(ratingKey));
        }
        let answer;
        try {
          answer = await asked;
        } catch (err) {
          failed ??= { err };
          continue;
        }
        if (answer === 'gone') continue;
        for (const f of answer.files) if (delivered.has(f) && !found.has(f)) found.set(f, answer);
      }
    };
    const most = part.reduce((n, scan) => n + scan.touched.length, 0);
    await Promise.all(Array.from({ length: Math.min(concurrency, most) }, worker));
  };
  await read(scans.slice(0, 1));
  if (found.size < delivered.size && scans.length > 1) await read(scans.slice(1));
  // A failed read matters only when it may have held a file not found elsewhere.
  if (failed && found.size < delivered.size) throw failed.err;
  return found;
}

/**
 * A GET of one metadata item whose refusal is a status, as itemFiles reads it (404: the item is gone), not an
 * exception; an answer past PLEX_ITEM is refused with a status that is neither.
 */
export function plexGet(api: PlexApi): PlexGet {
  return async (path) => {
    try {
      const res = await api.request('GET', path, PLEX_ITEM);
      return { status: res.status, body: await res.json().catch(() => undefined) };
    } catch (err) {
      // An answer dropped for its size says more than its status would: it fails the read as it is.
      if (err instanceof ApiRefusal && err.status !== 0 && err.status !== ANSWER_TOO_LARGE) return { status: err.status };
      throw err;
    }
  };
}
