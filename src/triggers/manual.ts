// The manual page and curl: eventType=Manual&filepath=<path>, plex_autoscan's form.
import { type TriggerResult } from './result.js';
import type { Payload } from './payload.js';

export const missingFilepath = 'filepath is missing: send eventType=Manual&filepath=<path of a file or folder>';

export function manualRequest(body: Payload): TriggerResult {
  const filepath = body.filepath;
  if (Array.isArray(filepath)) {
    return { kind: 'invalid', reason: `filepath was sent ${filepath.length} times: send one path per request` };
  }
  if (typeof filepath !== 'string' || filepath.trim() === '') return { kind: 'invalid', reason: missingFilepath };
  if (filepath.includes('\0')) return { kind: 'invalid', reason: 'filepath contains a NUL character: no file or folder can be named that' };
  // Kept exactly as typed: whether it names a file or a folder is decided on disk ('auto').
  return {
    kind: 'scan',
    source: 'manual',
    event: 'Manual',
    requests: [{ path: filepath, source: 'manual', event: 'Manual', kind: 'auto' }],
  };
}
