// The manual page and curl: eventType=Manual&filepath=<path>, plex_autoscan's form.
import { type TriggerResult } from './result.js';
import type { Payload } from './payload.js';

export const missingFilepath = 'filepath is missing: send eventType=Manual&filepath=<path of a file or folder>';

/**
 * `refresh=item` (or eventType=Refresh, which implies it) also asks for the metadata of the item(s) holding the
 * file to be refreshed: a subtitle or audio track added next to a video, a file transcoded in place.
 * `libraryRoot=true` (the page's box) lets a library's own folder be scanned, which scans the whole library;
 * without it such a folder is refused at delivery (src/targets/library-root.ts).
 */
export function manualRequest(body: Payload, event: 'Manual' | 'Refresh' = 'Manual'): TriggerResult {
  const libraryRoot = yesOrNo(body.libraryRoot);
  if (libraryRoot === undefined) {
    return { kind: 'invalid', reason: `libraryRoot must be true or false (true: scan the whole library when the path is a library's own folder), got ${JSON.stringify(body.libraryRoot)}` };
  }
  const refresh = body.refresh;
  if (refresh !== undefined && refresh !== 'item' && !(refresh === '' && event === 'Manual')) {
    return { kind: 'invalid', reason: `refresh must be "item" (to refresh the metadata of the item holding the file), got ${JSON.stringify(refresh)}` };
  }
  const filepath = body.filepath;
  if (Array.isArray(filepath)) {
    return { kind: 'invalid', reason: `filepath was sent ${filepath.length} times: send one path per request` };
  }
  if (typeof filepath !== 'string' || filepath.trim() === '') return { kind: 'invalid', reason: missingFilepath };
  if (filepath.includes('\0')) return { kind: 'invalid', reason: 'filepath contains a NUL character: no file or folder can be named that' };
  // Kept exactly as typed: whether it names a file or a folder is decided on disk ('auto').
  const item = event === 'Refresh' || refresh === 'item';
  return {
    kind: 'scan',
    source: 'manual',
    event,
    requests: [{ path: filepath, source: 'manual', event, kind: 'auto', ...(item ? { refresh: 'item' as const } : {}), ...(libraryRoot ? { libraryRoot } : {}) }],
  };
}

/** A form's or JSON body's yes/no: a checkbox sends "true" (or the browser's "on"), curl may send 1/0, JSON a boolean. */
function yesOrNo(value: unknown): boolean | undefined {
  if (value === undefined || value === false || value === '' || value === 'false' || value === '0') return false;
  if (value === true || value === 'true' || value === 'on' || value === '1') return true;
  return undefined;
}
