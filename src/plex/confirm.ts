// Is a file in Plex's library after its scan: the read-only database when readable, else the API, best effort.
import { ApiRefusal } from '../api-call.js';
import type { PlexApi } from './api.js';

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
    const res = await api.request('GET', `/library/sections/${encodeURIComponent(sectionId)}/all`, { file });
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
  | { state: 'confirmed'; via: 'database' | 'api'; ratingKey?: string; parentRatingKey?: string }
  | { state: 'not-found'; reason: string }
  | { state: 'unknown'; reason: string };

export interface BatchOptions {
  api: PlexApi;
  files: { file: string; sectionIds: string[] }[];
  /** The Plex database reader, when PLEX_DATABASE_PATH is readable. */
  fileInLibrary?: FileInLibrary;
  /** Also find the item's ratingKey through the API when the database confirmed it (analyze needs it). */
  wantItem: boolean;
  /** API lookups at once. */
  concurrency?: number;
}

/**
 * Asks the library about every file of a batch: the database first (authoritative for "no"), the API for a
 * "yes" and the item's ratingKey. Answers are in the order of `files`.
 */
export async function confirmBatch(opts: BatchOptions): Promise<BatchConfirmation[]> {
  const out: BatchConfirmation[] = new Array(opts.files.length);
  let next = 0;
  const worker = async () => {
    while (next < opts.files.length) {
      const i = next++;
      out[i] = await confirmOne(opts, opts.files[i].file, opts.files[i].sectionIds);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 8, opts.files.length) }, worker));
  return out;
}

async function confirmOne(opts: BatchOptions, file: string, sectionIds: string[]): Promise<BatchConfirmation> {
  const db = opts.fileInLibrary ? await opts.fileInLibrary(file).catch(() => 'unknown' as const) : 'unknown';
  if (db === false) return { state: 'not-found', reason: `'${file}' is not in Plex's database (media_parts)` };
  if (db === true && !opts.wantItem) return { state: 'confirmed', via: 'database' };
  const whys: string[] = [];
  for (const id of sectionIds) {
    const api = await lookupFileViaApi(opts.api, id, file);
    if (api.found === true) return { state: 'confirmed', via: db === true ? 'database' : 'api', ratingKey: api.ratingKey, parentRatingKey: api.parentRatingKey };
    if (api.why) whys.push(`section ${id}: ${api.why}`);
  }
  if (db === true) return { state: 'confirmed', via: 'database' };
  const reader = opts.fileInLibrary ? 'the Plex database could not be read' : 'the Plex database is not readable here (PLEX_DATABASE_PATH)';
  return { state: 'unknown', reason: `could not tell whether '${file}' is in the library: ${reader}; ${whys.join('; ')}` };
}
