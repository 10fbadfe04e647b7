// What a target kind is: one module that exports the keys of its TARGETS entries and builds its target's
// capabilities from one entry. Name, SCAN_PAUSE, SCAN_CONCURRENCY, PATH_MAPPINGS, INCLUDE/EXCLUDE and
// REFRESH_ITEMS are not a kind's: the table (build.ts) applies them to every kind alike.
import type * as z from 'zod/mini';
import type { Clock } from '../clock.js';
import { bool, integer, optional, optionalHttpUrl, pathMappings, seconds, stringList, text, withDefault } from '../value-rules.js';
import type { Logger } from '../log/logger.js';
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

/**
 * What building any kind's target may use besides its entry. A kind that needs more says so in its own context
 * (Plex: plex/context.ts), which the table hands to that kind alone.
 */
export interface KindContext {
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  /** The key that holds the entry's URL, for messages (the TARGETS entry's URL, or PLEX_LOCAL_URL for the first Plex). */
  urlKey: string;
}

export interface TargetKind<Keys extends z.core.$ZodShape = z.core.$ZodShape, Context extends KindContext = KindContext> {
  /**
   * The entry keys only this kind reads (a key two kinds read is declared alike by both). Made anew each time a
   * config is read, so no schema outlives the reading (docs/performance.md, idle memory).
   */
  keys(): Keys;
  /** The keys an entry of this kind cannot do without, each with what to write there. */
  requires: Partial<Record<'URL' | 'TOKEN' | Extract<keyof Keys, string>, string>>;
  /** A rule across keys, beyond `requires`. */
  refine?(entry: Entry<Keys>, ctx: z.core.$RefinementCtx): void;
  /** Its capabilities from one entry; a property, so a kind built with more than KindContext cannot be called with less. */
  build: (entry: Entry<Keys>, ctx: Context) => Capabilities;
}

/** A kind, typed by its own keys and context (the table holds them all under one type). */
export function targetKind<const Keys extends z.core.$ZodShape, Context extends KindContext = KindContext>(kind: TargetKind<Keys, Context>): TargetKind<Keys, Context> {
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
