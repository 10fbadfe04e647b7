// Config to targets, in one place for every kind: the first Plex from the PLEX_* keys, then each TARGETS entry,
// each built by its kind (kinds.ts) and given here what every target has alike: its name, SCAN_PAUSE,
// SCAN_CONCURRENCY, MAX_OUTSTANDING, PATH_MAPPINGS, INCLUDE/EXCLUDE and REFRESH_ITEMS, and the library-root guard
// of the kinds whose scan of a library's own folder is the whole library's. What is Plex's alone (the first Plex,
// the context of the Plex kinds) is in plex/context.ts.
import { entryUrlKey } from '../http/api-call.js';
import type { ScanContext, Target, TargetPath } from '../scan.js';
import type { Capabilities, Entry, KindContext } from './kind.js';
import { buildOf } from './kinds.js';
import { libraryRootRefusal } from './library-root.js';
import { firstPlexEntry, plexContext, type FirstPlexKeys, type PlexDatabases } from './plex/context.js';
import { targetPath } from './rewrite.js';

/** What building the targets is given beside the config: every kind's needs, and Plex's database for the Plex kinds. */
export interface BuildDeps extends Omit<KindContext, 'urlKey'>, PlexDatabases {}

/** The keys of the config the targets are built from (the loaded config is one). */
export interface TargetsConfig extends FirstPlexKeys {
  TARGETS: Entry[];
}

export function buildTargets(config: TargetsConfig, deps: BuildDeps): Target[] {
  const entries: { entry: Entry; first: boolean }[] = config.TARGETS.filter((t) => t.ENABLED !== false).map((entry) => ({ entry, first: false }));
  const first = firstPlexEntry(config, deps.logger);
  if (first) entries.unshift({ entry: first, first: true });
  return entries.map(({ entry, first }) => {
    const common: KindContext = { clock: deps.clock, logger: deps.logger, fetch: deps.fetch, urlKey: first ? 'PLEX_LOCAL_URL' : entryUrlKey(entry.NAME) };
    const kind = buildOf(entry.TYPE)!;
    const made = kind.plex ? kind.build(entry, plexContext(common, entry, first, config, deps)) : kind.build(entry, common);
    return configured(entry, made, config.PLEX_REFRESH_ITEMS);
  });
}

/** A kind's capabilities, with what the table applies to every kind alike. */
export function configured(entry: Entry, made: Capabilities, refreshItemsByDefault = false): Target {
  const rules = { mappings: entry.PATH_MAPPINGS, include: entry.INCLUDE, exclude: entry.EXCLUDE };
  const pathOf = (folder: string) => targetPath(folder, rules);
  const table: Table = { name: entry.NAME, pathOf };
  // Each capability by its way; one the kind did not make is left out, as the kind left it out.
  const handed = (Object.keys(handOver) as (keyof Capabilities)[]).map((key) => [key, handOver[key](made, table, key as never)] as const);
  const capabilities = Object.fromEntries(handed.filter(([, member]) => member !== undefined)) as Capabilities;
  return {
    ...capabilities,
    name: entry.NAME,
    pauseMs: (entry.SCAN_PAUSE ?? 0) * 1000,
    concurrency: entry.SCAN_CONCURRENCY,
    ...(entry.MAX_OUTSTANDING !== undefined ? { maxOutstanding: entry.MAX_OUTSTANDING } : {}),
    refreshOnChange: entry.REFRESH_ITEMS ?? refreshItemsByDefault,
    pathOf,
  };
}

/** What the table knows of the target a capability is handed to. */
interface Table {
  name: string;
  /** The folder in the target's form (its PATH_MAPPINGS), and whether INCLUDE/EXCLUDE let it through. */
  pathOf: (folder: string) => TargetPath;
}

/**
 * How each capability a kind made reaches its Target. Mapped over Capabilities (src/scan.ts, where the capabilities
 * are listed once), so one added there does not compile until it is given its way here: as the kind made it, or
 * (when it takes a folder or a file) in the target's own path form.
 */
type HandOver = { [K in keyof Capabilities]-?: (made: Capabilities, table: Table, key: K) => Capabilities[K] };

/** As the kind made it (a method bound to its kind's object: a class keeps its methods where a spread does not look). */
function asMade<K extends keyof Capabilities>(made: Capabilities, _table: Table, key: K): Capabilities[K] {
  const member = made[key];
  return (typeof member === 'function' ? member.bind(made) : member) as Capabilities[K];
}

/** An item lookup by file, in the target's form; a file INCLUDE/EXCLUDE keeps from the target is not found there. */
function byFile<R>(table: Table, call: (path: string) => Promise<R>) {
  return async (file: string): Promise<R | { status: 'not-found'; detail: string }> => {
    const { path, excluded } = table.pathOf(file);
    return excluded ? { status: 'not-found', detail: excluded } : call(path);
  };
}

const handOver: HandOver = {
  kind: asMade,
  follower: asMade,
  outstanding: asMade,
  available: asMade,
  libraries: asMade,
  wholeLibraryAtRoot: asMade,
  scan: (made, { name, pathOf }) =>
    async (folder: string, context: ScanContext) => {
      const { path, excluded } = pathOf(folder);
      if (excluded) return { status: 'unmatched', detail: excluded };
      const refused = await libraryRootRefusal(made, name, path, context);
      if (refused) return refused;
      const file = context.file === undefined ? undefined : pathOf(context.file).path;
      const files = context.files && { ...context.files, live: context.files.live.map((f) => pathOf(f).path), gone: context.files.gone.map((f) => pathOf(f).path) };
      return made.scan(path, { ...context, ...(file === undefined ? {} : { file }), ...(files ? { files } : {}) });
    },
  serverNotes: asMade,
  // The library comes from the target's own list, and the files are in its form: nothing to rewrite.
  files: asMade,
  explainScan: (made, table) => made.explainScan && ((folder: string) => made.explainScan!(table.pathOf(folder).path)),
  locate: (made, table) => made.locate && byFile(table, (path) => made.locate!(path)),
  refreshItem: (made, table) => made.refreshItem && byFile(table, (path) => made.refreshItem!(path)),
};
