// Which drives to watch: My Drive always, plus with GOOGLE.TEAMDRIVE each shared drive in TEAMDRIVES, matched
// by ID or by name through drives.list; their root folders are registered in the cache.
import type { Logger } from '../log/logger.js';
import type { SharedDrive } from '../google/shared-drives.js';
import type { DriveApi } from './api.js';
import { MY_DRIVE, MY_DRIVE_NAME, type DriveCache } from './cache.js';
import type { GoogleSettings } from './settings.js';

export interface WatchTarget {
  /** "root" for My Drive, else the shared drive's ID. */
  key: string;
  name: string;
  /** undefined for My Drive. */
  driveId?: string;
}

export async function findWatchedDrives(
  api: DriveApi,
  cache: DriveCache,
  settings: GoogleSettings,
  logger: Logger,
  account: string,
): Promise<WatchTarget[]> {
  const root = await api.getFile('root');
  if (!root) throw new Error('Google Drive did not return the My Drive root folder');
  cache.setRoot(MY_DRIVE, root.id, MY_DRIVE_NAME);
  const watched: WatchTarget[] = [{ key: MY_DRIVE, name: MY_DRIVE_NAME }];
  if (!settings.TEAMDRIVE) return watched;
  const visible = await api.listDrives();
  for (const wanted of settings.TEAMDRIVES) {
    const found = matchDrive(visible, wanted);
    if (!found) {
      logger.warn(
        { visible: visible.map((d) => d.name) },
        `GOOGLE.TEAMDRIVES: no shared drive named or with ID '${wanted}' is visible to ${account}`,
      );
      continue;
    }
    if (watched.some((w) => w.key === found.id)) continue;
    cache.setRoot(found.id, found.id, found.name);
    watched.push({ key: found.id, name: found.name, driveId: found.id });
  }
  return watched;
}

/** An exact ID first, then the exact name, then the name ignoring case. */
export function matchDrive(visible: SharedDrive[], wanted: string): SharedDrive | undefined {
  const w = wanted.trim();
  return (
    visible.find((d) => d.id === w) ??
    visible.find((d) => d.name === w) ??
    visible.find((d) => d.name.toLowerCase() === w.toLowerCase())
  );
}
