// The "tdarr" kind: asks Tdarr to look for new files in the folder (POST /api/v2/scan-files) for one library.
import { ACKNOWLEDGEMENT, SERVER_STATUS } from '../http/answer-caps.js';
import { apiCaller, entryUrlKey } from '../http/api-call.js';
import { optional, text } from '../value-rules.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import type { ScanContext, ScanOutcome } from '../scan.js';
import { httpOptions, needsUrl, targetKind, type Capabilities, type HttpTargetOptions } from './kind.js';

export function tdarrTarget(opts: HttpTargetOptions & { libraryId: string }): Capabilities {
  const who = `tdarr '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: opts.urlKey ?? entryUrlKey(opts.name),
    // Tdarr checks the key only when its own API-key setting is on; sending none is fine otherwise.
    headers: opts.token ? { 'x-api-key': opts.token } : {},
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    clock: opts.clock,
    logger: opts.logger,
    authHint: "check TOKEN (Tdarr's API key)",
  });
  return {
    kind: 'tdarr',
    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      // scan-files finds new files; a deletion has nothing to transcode and Tdarr drops missing files itself.
      if (context.deleted) return { status: 'unmatched', detail: `${who} is not told about deletions` };
      try {
        await api.call('POST', '/api/v2/scan-files', {
          cap: ACKNOWLEDGEMENT,
          body: { data: { scanConfig: { dbID: opts.libraryId, arrayOrPath: [context.file ?? path], mode: 'scanFindNew' } } },
        });
        return { status: 'scanned', detail: `library ${opts.libraryId}` };
      } catch (err) {
        return api.retry(err);
      }
    },
    available: () => api.answers('GET', '/api/v2/status', { cap: SERVER_STATUS }),
  };
}

export const tdarr = targetKind({
  keys: () => ({
    /** The library (dbID) the files are scanned into. */
    LIBRARY_ID: optional(text()),
  }),
  requires: { URL: needsUrl('tdarr'), LIBRARY_ID: "the Tdarr library's id (dbID)" },
  build: (entry, ctx) => tdarrTarget({ ...httpOptions(entry, ctx), libraryId: entry.LIBRARY_ID ?? '' }),
});
