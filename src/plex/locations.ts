// Plex's section folders for commands that run without the service: the API with a token, else the database.
import type { Config } from '../config/schema.js';
import { PlexApi } from './api.js';

export interface SectionFolders {
  id: string;
  title: string;
  locations: string[];
}

export async function scannerSections(config: Config): Promise<SectionFolders[]> {
  if (config.PLEX_TOKEN) {
    return (await new PlexApi({ url: config.PLEX_LOCAL_URL, token: config.PLEX_TOKEN }).sections()).map(({ id, title, locations }) => ({ id, title, locations }));
  }
  throw new Error(`cannot find the section of this path: set PLEX_TOKEN, or give --section (list them with: scanrelay sections --scanner)`);
}
