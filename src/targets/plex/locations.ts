// Plex's section folders for commands that run without the service: the API with a token, else the database.
import { PlexApi } from './api.js';
import { openPlexDatabase, type SectionLocation } from './database.js';
import type { PlexKeys } from './keys.js';

export interface SectionFolders {
  id: string;
  title: string;
  locations: string[];
}

export async function scannerSections(config: Pick<PlexKeys, 'PLEX_LOCAL_URL' | 'PLEX_TOKEN' | 'PLEX_DATABASE_PATH'>): Promise<SectionFolders[]> {
  if (config.PLEX_TOKEN) {
    return (await new PlexApi({ url: config.PLEX_LOCAL_URL, token: config.PLEX_TOKEN }).sections()).map(({ id, title, locations }) => ({ id, title, locations }));
  }
  const db = openPlexDatabase(config.PLEX_DATABASE_PATH);
  try {
    const rows = db.sectionLocations();
    if (rows !== 'unknown') return groupLocations(rows);
  } finally {
    db.close();
  }
  throw new Error(`cannot find the section of this path: set PLEX_TOKEN or make PLEX_DATABASE_PATH readable, or give --section (list them with: scanrelay sections --scanner)`);
}

/** Plex's database lists one row per (section, folder); group them per section. */
export function groupLocations(rows: SectionLocation[]): SectionFolders[] {
  const byId = new Map<number, SectionFolders>();
  for (const r of rows) {
    const s = byId.get(r.sectionId) ?? { id: String(r.sectionId), title: r.sectionName, locations: [] };
    s.locations.push(r.rootPath);
    byId.set(r.sectionId, s);
  }
  return [...byId.values()];
}
