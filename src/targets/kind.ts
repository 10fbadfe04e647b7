// What a target kind is: one module that exports the keys of its TARGETS entries and builds its target's
// capabilities from one entry. Name, SCAN_PAUSE, SCAN_CONCURRENCY, PATH_MAPPINGS, INCLUDE/EXCLUDE and
// REFRESH_ITEMS are not a kind's: the table (build.ts) applies them to every kind alike.
import type * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import { bool, integer, optional, optionalHttpUrl, pathMappings, seconds, stringList, text, withDefault } from '../config/values.js';
import type { Logger } from '../log.js';
import type { DeletedCounter } from '../plex/after-scan.js';
import type { FileInLibrary } from '../plex/confirm.js';
import type { PlexKeys } from '../plex/keys.js';
import type { SectionFolders } from '../plex/locations.js';
import type { ItemLocation, ItemRefreshResult, ItemRetry, Target } from '../scan.js';

/** The keys of every TARGETS entry beside NAME and TYPE, whatever its kind (made while a config is read, then let go). */
export const commonKeys = () => ({
  ENABLED: withDefault(bool(), true),
  URL: optional(optionalHttpUrl()),
  TOKEN: optional(text()),
  /** Rewrites the first Plex's path into this server's path; same shape as SERVER_PATH_MAPPINGS. */
  PATH_MAPPINGS: withDefault(pathMappings(), {}),
  /** Path prefixes; empty INCLUDE = everything. */
  INCLUDE: withDefault(stringList(true), []),
  EXCLUDE: withDefault(stringList(true), []),
  SCAN_PAUSE: withDefault(seconds(), 0),
  /** Scans sent to this server at once while SCAN_PAUSE is 0. */
  SCAN_CONCURRENCY: optional(integer(1, 64, 'a whole number from 1 to 64')),
  /** Scans this server accepted and has not finished, at most (kinds that can tell: Plex); unset = 8. */
  MAX_OUTSTANDING: optional(integer(1, 100_000, 'a whole number from 1 to 100000')),
  /** Rename and upgrade events also refresh the file's item on this server; unset = PLEX_REFRESH_ITEMS. */
  REFRESH_ITEMS: optional(bool()),
});

export type Entry<Keys extends z.core.$ZodShape = z.core.$ZodShape> = { NAME: string; TYPE: string } & z.output<z.ZodMiniObject<ReturnType<typeof commonKeys>>> &
  z.output<z.ZodMiniObject<Keys>>;

/** What a kind's module builds: everything a Target is but what the table applies to every kind. */
export type Capabilities = Omit<Target, 'name' | 'pauseMs' | 'concurrency' | 'maxOutstanding' | 'pathOf' | 'refreshOnChange'>;

/** What building a target may use besides its entry. */
export interface KindContext {
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  /** The first Plex, built from the PLEX_* keys rather than a TARGETS entry: messages name those keys. */
  first: boolean;
  /** The keys that hold the entry's URL and TOKEN, for messages ("PLEX_LOCAL_URL", or the TARGETS entry's URL). */
  urlKey: string;
  tokenKey: string;
  /** The top-level keys a Plex entry's left-out keys fall back on. */
  plex: PlexKeys;
  /** Plex's read-only database at a path: is a file in the library, how many items are marked deleted. */
  plexDatabase?: (databasePath: string) => { fileInLibrary?: FileInLibrary; deletedCount?: DeletedCounter } | undefined;
  /** A Plex's section folders from its database, for a scanner entry without a token. */
  scannerSections?: (databasePath: string) => Promise<SectionFolders[]>;
}

export interface TargetKind<Keys extends z.core.$ZodShape = z.core.$ZodShape> {
  /**
   * The entry keys only this kind reads (a key two kinds read is declared alike by both). Made anew each time a
   * config is read, so no schema outlives the reading (docs/performance.md, idle memory).
   */
  keys(): Keys;
  /** The keys an entry of this kind cannot do without, each with what to write there. */
  requires: Partial<Record<'URL' | 'TOKEN' | Extract<keyof Keys, string>, string>>;
  /** A rule across keys, beyond `requires`. */
  refine?(entry: Entry<Keys>, ctx: z.core.$RefinementCtx): void;
  build(entry: Entry<Keys>, ctx: KindContext): Capabilities;
}

/** A kind, typed by its own keys (the table holds them all under one type). */
export function targetKind<const Keys extends z.core.$ZodShape>(kind: TargetKind<Keys>): TargetKind<Keys> {
  return kind;
}

/** What `requires` says of a URL and a token, the same for every kind. */
export const needsUrl = (type: string) => `an http:// or https:// URL for a ${type} target`;
export const needsToken = (type: string) => `the ${type} API token`;

/** What the constructor of a kind that calls an HTTP API takes (besides its own keys). */
export interface HttpTargetOptions {
  name: string;
  url: string;
  token: string;
  /** The config key holding `url`, named in messages (the TARGETS entry's URL by default). */
  urlKey?: string;
  timeoutMs?: number;
  clock?: Clock;
  fetch?: typeof fetch;
  /** Where an answer dropped for its size is said. */
  logger?: Logger;
}

/** The HttpTargetOptions of an entry. */
export function httpOptions(entry: Entry, ctx: KindContext): HttpTargetOptions {
  return { name: entry.NAME, url: entry.URL ?? '', token: entry.TOKEN ?? '', urlKey: ctx.urlKey, clock: ctx.clock, fetch: ctx.fetch, logger: ctx.logger };
}

/** `refreshItem` from a kind's `locate` and its server's refresh of one item. */
export function refreshingItems(
  locate: (file: string) => Promise<ItemLocation>,
  refreshOne: (item: string) => Promise<void>,
  retry: (err: unknown) => ItemRetry,
): (file: string) => Promise<ItemRefreshResult> {
  return async (file) => {
    const found = await locate(file);
    if (found.status !== 'found') return found;
    try {
      for (const item of found.items) await refreshOne(item);
      return { status: 'refreshed', items: found.items, detail: `refreshed item ${found.items.join(', ')}` };
    } catch (err) {
      return retry(err);
    }
  };
}
