// GOOGLE.ALLOWED applied to one Drive file: watched path prefixes, extensions and MIME types.
import { FOLDER_MIME } from './api.js';
import type { GoogleAllowed } from './settings.js';

export type FilterVerdict =
  | { ok: true }
  | { ok: false; reason: 'folder' | 'no-path' | 'path' | 'extension' | 'mime' };

export interface FilterInput {
  /** Drive-form path, or null when some ancestor is not visible. */
  path: string | null;
  mimeType: string;
}

/**
 * plex_autoscan's rules with two deliberate fixes: an extension must follow a dot ("ts" no longer matches
 * "…parts"), and a FILE_PATHS prefix must end at a folder boundary ("My Drive/TV" does not match "My Drive/TV2").
 * An empty FILE_PATHS still allows nothing, as before, so an upgrade never starts scanning a whole drive.
 */
export function checkAllowed(file: FilterInput, allowed: GoogleAllowed): FilterVerdict {
  if (file.mimeType === FOLDER_MIME || file.mimeType.includes('vnd.google-apps.folder')) return { ok: false, reason: 'folder' };
  if (file.path == null) return { ok: false, reason: 'no-path' };
  const path = file.path.toLowerCase();
  const underWatched = allowed.FILE_PATHS.some((prefix) => {
    const p = prefix.toLowerCase().replace(/\/+$/, '');
    return p !== '' && (path === p || path.startsWith(`${p}/`));
  });
  if (!underWatched) return { ok: false, reason: 'path' };
  if (allowed.FILE_EXTENSIONS) {
    const ok = allowed.FILE_EXTENSIONS_LIST.some((ext) => path.endsWith(`.${ext.toLowerCase().replace(/^\./, '')}`));
    if (!ok) return { ok: false, reason: 'extension' };
  }
  if (allowed.MIME_TYPES) {
    const mime = file.mimeType.toLowerCase();
    let ok = allowed.MIME_TYPES_LIST.some((m) => m && mime.includes(m.toLowerCase()));
    // Drive labels .sub subtitle files video/MP2G; they are not videos to scan for.
    if (ok && mime.includes('video') && path.endsWith('.sub')) ok = false;
    if (!ok) return { ok: false, reason: 'mime' };
  }
  return { ok: true };
}
