// The running service's handles on Plex's database (PLEX_DATABASE_PATH): the one kept open for the "already in
// Plex" check, and those the Plex kinds open for a section's files, its trash and the scanner's section list.
import type { Clock } from '../../clock.js';
import { ConditionLog } from '../../log/condition.js';
import type { Logger } from '../../log/logger.js';
import { openPlexDatabase, type PlexDatabase } from './database.js';
import { PLEX_DATABASE_PATH_DEFAULT } from './keys.js';
import { groupLocations } from './locations.js';
import type { PlexDatabases } from './context.js';

/** The two keys this reads (the config's schema stands above the kinds: src/config/ gathers their keys). */
type DatabaseKeys = { PLEX_DATABASE_PATH: string; GOOGLE: { ENABLED: boolean } };

export function plexDatabases(config: DatabaseKeys, opts: { logger: Logger; clock: Clock; tryAtStart: boolean }): { plexDb: PlexDatabase; databases: PlexDatabases } {
  const { logger, clock } = opts;
  // One "say it once" record for every handle (src/log/condition.ts). The database is optional with a token: at
  // the default path that a user never chose, its absence is nothing to act on, so one DEBUG line (an INFO after
  // every start's first scan read as a fault); a PLEX_DATABASE_PATH the user set and that cannot be read is a
  // WARN, repeated while it lasts.
  const chosen = config.PLEX_DATABASE_PATH !== PLEX_DATABASE_PATH_DEFAULT;
  const conditions = new ConditionLog({ logger, clock, ...(chosen ? {} : { level: 'debug' as const, summaryEveryMs: Infinity }) });
  const plexDb = openPlexDatabase(config.PLEX_DATABASE_PATH, {
    logger,
    clock,
    conditions,
    without: config.GOOGLE.ENABLED
      ? 'Drive files will be scanned without the "already in Plex" check, and scans are confirmed through the Plex API'
      : 'scans are confirmed through the Plex API instead',
  });
  // A path the user chose is tried at start, so a wrong one shows now rather than at the first scan that needs it.
  if (chosen && opts.tryAtStart) plexDb.sectionLocations();
  return {
    plexDb,
    databases: {
      plexDatabase: (path) => {
        const db = path === config.PLEX_DATABASE_PATH ? plexDb : openPlexDatabase(path, { logger, clock, conditions });
        return { fileInLibrary: async (file) => db.hasFile(file), deletedCount: async (sectionId) => db.deletedCount(sectionId) };
      },
      scannerSections: async (path) => {
        const db = openPlexDatabase(path, { logger, clock, conditions });
        try {
          const rows = db.sectionLocations();
          if (rows === 'unknown') throw new Error(`Plex's database '${path}' is not readable: set PLEX_TOKEN or fix PLEX_DATABASE_PATH`);
          return groupLocations(rows);
        } finally {
          db.close();
        }
      },
    },
  };
}
