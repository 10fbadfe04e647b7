// Is a file in Plex's library after its scan, when the notifications did not show it: the read-only database when
// readable, else (only when the socket is down too) the recently added items. `lookupFileViaApi` (the
// undocumented `?file=` filter) is kept for locating an item to refresh, never for following scans.
import { PLEX_FILE_LOOKUP } from '../../http/answer-caps.js';
import { ApiRefusal } from '../../http/api-call.js';
import type { PlexApi } from './api.js';
import { findRecentlyAdded, type FoundItem, type RecentSection } from './recently-added.js';

/** The database reader's answer: true/false from media_parts, 'unknown' when the database can't be read. */
export type FileInLibrary = (path: string) => Promise<boolean | 'unknown'>;

export interface ApiLookup {
  /** 'unknown' when Plex's answer can't settle it (the file filter is undocumented). */
  found: boolean | 'unknown';
  ratingKey?: string;
  parentRatingKey?: string;
  why?: string;
}

/**
 * `GET /library/sections/{id}/all?file=<path>` is undocumented. Only an item whose Part.file
 * equals the path counts as found; an empty answer or items that don't match (the filter ignored) prove nothing.
 */
export async function lookupFileViaApi(api: PlexApi, sectionId: string, file: string): Promise<ApiLookup> {
  let body: unknown;
  try {
    const res = await api.request('GET', `/library/sections/${encodeURIComponent(sectionId)}/all`, PLEX_FILE_LOOKUP, { file });
    body = await res.json().catch(() => undefined);
  } catch (err) {
    if (err instanceof ApiRefusal) return { found: 'unknown', why: `the API file lookup failed (${err.status || 'no answer'})` };
    throw err;
  }
  const items = (body as { MediaContainer?: { Metadata?: unknown } } | undefined)?.MediaContainer?.Metadata;
  if (!Array.isArray(items) || items.length === 0) {
    return { found: 'unknown', why: 'the API file lookup (undocumented) returned nothing' };
  }
  for (const raw of items) {
    const item = raw as { ratingKey?: unknown; parentRatingKey?: unknown; Media?: { Part?: { file?: unknown }[] }[] };
    const files = (item.Media ?? []).flatMap((m) => (m.Part ?? []).map((p) => String(p.file ?? '')));
    if (files.includes(file)) {
      return {
        found: true,
        ratingKey: item.ratingKey === undefined ? undefined : String(item.ratingKey),
        parentRatingKey: item.parentRatingKey === undefined ? undefined : String(item.parentRatingKey),
      };
    }
  }
  return { found: 'unknown', why: 'the API file lookup (undocumented) ignored the file filter' };
}

/** What the library says of one file: in it, not in it (only the database can say no), or can't tell. */
export type BatchConfirmation =
  | { state: 'confirmed'; via: 'notifications' | 'database' | 'listing'; ratingKey?: string; parentRatingKey?: string }
  | { state: 'not-found'; reason: string }
  | { state: 'unknown'; reason: string };

export interface BatchOptions {
  api: PlexApi;
  /**
   * `listing`: page through the sections' recently added items for what the database cannot settle; only for a
   * file whose scan the notification socket did not watch (both the socket and the database failed). `sentAt`: when
   * its scan was sent, how far back the pages are read.
   */
  files: { file: string; sections: RecentSection[]; listing: boolean; sentAt?: number }[];
  /** The Plex database reader, when PLEX_DATABASE_PATH is readable. */
  fileInLibrary?: FileInLibrary;
  /** Also find the item's ratingKey when the database confirmed it (analyze needs it). */
  wantItem: boolean;
  /** Database reads at once. */
  concurrency?: number;
}

/**
 * Asks the library about every file of a batch: the database first (authoritative for "no"), then, where it
 * cannot tell or an item is wanted, the recently added items (paged, one pass for the whole batch). Answers are
 * in the order of `files`.
 */
export async function confirmBatch(opts: BatchOptions): Promise<BatchConfirmation[]> {
  const db: (boolean | 'unknown')[] = new Array(opts.files.length);
  let next = 0;
  const worker = async () => {
    while (next < opts.files.length) {
      const i = next++;
      db[i] = opts.fileInLibrary ? await opts.fileInLibrary(opts.files[i].file).catch(() => 'unknown' as const) : 'unknown';
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 8, opts.files.length) }, worker));
  const listed = opts.files.filter((f, i) => (db[i] === 'unknown' && f.listing) || (db[i] === true && opts.wantItem));
  let found = new Map<string, FoundItem>();
  let listingFailed: string | undefined;
  if (listed.length) {
    const sections = new Map<string, RecentSection>();
    for (const f of listed) for (const s of f.sections) sections.set(s.id, s);
    try {
      const sent = listed.map((f) => f.sentAt).filter((at) => at !== undefined);
      found = await findRecentlyAdded(opts.api, [...sections.values()], new Set(listed.map((f) => f.file)), sent.length ? Math.min(...sent) : undefined);
    } catch (err) {
      listingFailed = (err as Error).message;
    }
  }
  return opts.files.map(({ file, listing }, i): BatchConfirmation => {
    const item = found.get(file);
    if (db[i] === false) return { state: 'not-found', reason: `'${file}' is not in Plex's database (media_parts)` };
    if (db[i] === true) return { state: 'confirmed', via: 'database', ratingKey: item?.ratingKey, parentRatingKey: item?.parentRatingKey };
    if (item) return { state: 'confirmed', via: 'listing', ratingKey: item.ratingKey, parentRatingKey: item.parentRatingKey };
    const reader = opts.fileInLibrary ? 'the Plex database could not be read' : 'no Plex database here (PLEX_DATABASE_PATH)';
    const how = !listing ? "not among the items Plex's notifications said the scan added or changed" : listingFailed ? `the recently added items could not be read (${listingFailed})` : 'not among the recently added items';
    return { state: 'unknown', reason: `${reader}; ${how}` };
  });
}
