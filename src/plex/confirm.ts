// Is a file in Plex's library after its scan: the read-only database when readable, else the API, best effort.
import { PlexError, type PlexApi } from './api.js';
import type { Sleep } from './activities.js';

/** The database reader's answer: true/false from media_parts, 'unknown' when the database can't be read. */
export type FileInLibrary = (path: string) => Promise<boolean | 'unknown'>;

export type Confirmation =
  | { state: 'confirmed'; via: 'database' | 'api'; ratingKey?: string; parentRatingKey?: string }
  | { state: 'not-found'; reason: string }
  | { state: 'unknown'; reason: string };

export interface ApiLookup {
  /** 'unknown' when Plex's answer can't settle it (the file filter is undocumented). */
  found: boolean | 'unknown';
  ratingKey?: string;
  parentRatingKey?: string;
  why?: string;
}

/**
 * `GET /library/sections/{id}/all?file=<path>`: undocumented (interfaces.md §2.5). Only an item whose Part.file
 * equals the path counts as found; an empty answer or items that don't match (the filter ignored) prove nothing.
 */
export async function lookupFileViaApi(api: PlexApi, sectionId: string, file: string): Promise<ApiLookup> {
  let body: unknown;
  try {
    const res = await api.request('GET', `/library/sections/${encodeURIComponent(sectionId)}/all`, { file });
    body = await res.json().catch(() => undefined);
  } catch (err) {
    if (err instanceof PlexError) return { found: 'unknown', why: `the API file lookup failed (${err.status || 'no answer'})` };
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

export interface ConfirmOptions {
  api: PlexApi;
  sectionIds: string[];
  file: string;
  /** The Plex database reader, when PLEX_DATABASE_PATH is wired in. */
  fileInLibrary?: FileInLibrary;
  /** Extra looks after a "no" from the database: Plex may still be writing the item. */
  retries?: number;
  retryDelayMs?: number;
  sleep: Sleep;
}

/**
 * The database is authoritative for "no" (it is what Plex serves from); the API can only ever say "yes". A "yes"
 * from either wins, and the API is asked anyway when the caller may want the item's ratingKey (analyze).
 */
export async function confirmFile(opts: ConfirmOptions): Promise<Confirmation> {
  const retries = opts.retries ?? 2;
  let dbAnswer: boolean | 'unknown' = 'unknown';
  if (opts.fileInLibrary) {
    for (let attempt = 0; ; attempt++) {
      dbAnswer = await opts.fileInLibrary(opts.file).catch(() => 'unknown' as const);
      if (dbAnswer !== false || attempt >= retries) break;
      await opts.sleep(opts.retryDelayMs ?? 1_000);
    }
  }
  const whys: string[] = [];
  for (const id of opts.sectionIds) {
    const api = await lookupFileViaApi(opts.api, id, opts.file);
    if (api.found === true) return { state: 'confirmed', via: 'api', ratingKey: api.ratingKey, parentRatingKey: api.parentRatingKey };
    if (api.why) whys.push(`section ${id}: ${api.why}`);
  }
  if (dbAnswer === true) return { state: 'confirmed', via: 'database' };
  if (dbAnswer === false) {
    return { state: 'not-found', reason: `'${opts.file}' is not in Plex's database (media_parts) after the scan finished` };
  }
  const db = opts.fileInLibrary ? 'the Plex database could not be read' : 'the Plex database reader is not available';
  return { state: 'unknown', reason: `could not tell whether '${opts.file}' is in the library: ${db}; ${whys.join('; ')}` };
}
