// Builders for the ScanRequest lists the trigger tests expect, so each case reads as "file(...)" or "folder(...)".
import type { ScanRequest, Source } from '../../src/request.js';
import type { TriggerResult } from '../../src/triggers/index.js';

export function requestsFrom(source: Source, event: string) {
  return {
    file: (path: string): ScanRequest => ({ path, source, event, kind: 'file' }),
    /** A renamed or upgraded file: its item's metadata is refreshed where REFRESH_ITEMS is on. */
    refreshedFile: (path: string): ScanRequest => ({ path, source, event, kind: 'file', refresh: 'item-if-enabled' }),
    deletedFile: (path: string): ScanRequest => ({ path, source, event, kind: 'file', deleted: true }),
    folder: (path: string): ScanRequest => ({ path, source, event, kind: 'folder' }),
    deletedFolder: (path: string): ScanRequest => ({ path, source, event, kind: 'folder', deleted: true }),
  };
}

/** The expected parse of a webhook that asks for scans. */
export function scan(source: Source, event: string, build: (r: ReturnType<typeof requestsFrom>) => ScanRequest[]): TriggerResult {
  return { kind: 'scan', source, event, requests: build(requestsFrom(source, event)) };
}

/** The parse without the series/movie IDs on its requests (those are checked in test/plex/match-ids.test.ts). */
export function withoutIds(result: TriggerResult): TriggerResult {
  if (result.kind !== 'scan') return result;
  return { ...result, requests: result.requests.map(({ ids: _ids, ...r }) => r) };
}
