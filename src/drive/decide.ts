// Decides, without touching anything, what one Drive change means: how the id -> path cache takes it, and whether a
// new or changed file becomes a scan request (GOOGLE.ALLOWED, SERVER_PATH_MAPPINGS, the path gate, the Plex check).
import { FOLDER_MIME, type DriveChange, type DriveFile } from './api.js';
import type { CachedItem } from './cache.js';
import type { DriveNames } from './crypt-paths.js';
import { checkAllowed } from './filters.js';
import type { GoogleAllowed } from './settings.js';

/** What a change does to the cache of the drive whose feed carried it. */
export type CacheAction =
  | { kind: 'drive' }
  /** `onlyFrom`: forget the item only if this drive holds it (another drive's feed may already have taken it). */
  | { kind: 'remove'; id?: string; onlyFrom?: string }
  | { kind: 'upsert'; file: DriveFile };

export function cacheAction(drive: { key: string; driveId?: string }, change: DriveChange): CacheAction {
  if (change.changeType === 'drive' || (change.driveId && !change.fileId && !change.file)) return { kind: 'drive' };
  const file = change.file;
  if (change.removed || !file) return { kind: 'remove', id: change.fileId };
  // An item of another drive: moved out of this one, or (defensively) a shared-drive item in My Drive's feed,
  // which that drive's own cursor handles.
  const elsewhere = drive.driveId ? file.driveId !== drive.driveId : file.driveId !== undefined;
  if (elsewhere) return { kind: 'remove', id: file.id, onlyFrom: drive.key };
  if (file.trashed) return { kind: 'remove', id: file.id };
  return { kind: 'upsert', file };
}

/** plex_autoscan's rule: new, content changed (md5/size), renamed or moved count; the rest is noise. */
export function isNewOrChanged(old: CachedItem | undefined, item: CachedItem): boolean {
  if (!old || old.name === null) return true;
  if (old.path !== item.path) return true;
  if (old.md5 && item.md5) return old.md5 !== item.md5;
  return old.size !== item.size;
}

export interface ScanRules {
  allowed: GoogleAllowed;
  /** DISABLE_DISK_FILE_SIZE_CHECK: the Plex check goes by name alone. */
  ignoreSize: boolean;
  names?: DriveNames;
  /** SERVER_PATH_MAPPINGS; returning the path unchanged means "not mapped". */
  mapPath: (drivePath: string) => string;
  gate?: (drivePath: string) => { ok: true } | { ok: false; message: string };
  inPlex: (serverPath: string, size?: number) => boolean | 'unknown';
}

export type ScanVerdict =
  | { verdict: 'folder' }
  | { verdict: 'unchanged' }
  | { verdict: 'unwanted' }
  /** Already requested earlier in the same page. */
  | { verdict: 'duplicate' }
  /** `root`: the path's first folders, to name in the one warning per root. */
  | { verdict: 'unmapped'; drivePath: string; root: string }
  | { verdict: 'refused'; message: string }
  | { verdict: 'in-plex'; serverPath: string }
  | { verdict: 'scan'; drivePath: string; serverPath: string };

/** The fate of a file the cache just took in (`old` is what the cache held before). */
export function scanVerdict(
  file: DriveFile,
  old: CachedItem | undefined,
  item: CachedItem,
  rules: ScanRules,
  requested: ReadonlySet<string>,
): ScanVerdict {
  if (file.mimeType === FOLDER_MIME) return { verdict: 'folder' };
  if (!isNewOrChanged(old, item)) return { verdict: 'unchanged' };
  // Encrypted names (RCLONE.CRYPT_MAPPINGS) are decoded first: filters and mappings are written for plain paths.
  const size = item.size ?? undefined;
  const named = item.path == null ? undefined : rules.names ? rules.names.decode(item.path, size) : { path: item.path, size };
  const allowed = checkAllowed({ path: named?.path ?? null, mimeType: file.mimeType }, rules.allowed);
  if (!allowed.ok || named == null) return { verdict: 'unwanted' };
  const drivePath = named.path;
  if (requested.has(drivePath)) return { verdict: 'duplicate' };
  let serverPath: string;
  try {
    serverPath = rules.mapPath(drivePath);
  } catch {
    serverPath = drivePath;
  }
  if (serverPath === drivePath) return { verdict: 'unmapped', drivePath, root: drivePath.split('/').slice(0, -1).slice(0, 3).join('/') };
  // Drive names may hold "/", ".." or control characters: such a path could point anywhere once mapped.
  const gate = rules.gate?.(drivePath);
  if (gate && !gate.ok) return { verdict: 'refused', message: gate.message };
  let known: boolean | 'unknown';
  try {
    known = rules.inPlex(serverPath, rules.ignoreSize ? undefined : named.size);
  } catch {
    known = 'unknown';
  }
  if (known === true) return { verdict: 'in-plex', serverPath };
  return { verdict: 'scan', drivePath, serverPath };
}
