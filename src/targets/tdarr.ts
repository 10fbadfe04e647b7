// The "tdarr" target: asks Tdarr to look for new files in the folder (POST /api/v2/scan-files) for one library.
import { trimTrailingSeparator } from '../paths/folder.js';
import { apiCaller, entryUrlKey } from './api-call.js';
import type { HttpTargetOptions } from './audiobookshelf.js';
import type { ScanContext, ScanOutcome, Target } from '../scan.js';

export function tdarrTarget(opts: HttpTargetOptions & { libraryId: string }): Target {
  const who = `tdarr '${opts.name}'`;
  const api = apiCaller({
    who,
    url: opts.url,
    urlKey: entryUrlKey(opts.name),
    // Tdarr checks the key only when its own API-key setting is on; sending none is fine otherwise.
    headers: opts.token ? { 'x-api-key': opts.token } : {},
    secrets: [opts.token],
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    authHint: "check TOKEN (Tdarr's API key)",
  });
  return {
    name: opts.name,
    kind: 'tdarr',
    pauseMs: opts.pauseMs ?? 0,
    async scan(folder: string, context: ScanContext): Promise<ScanOutcome> {
      const path = trimTrailingSeparator(folder);
      // scan-files finds new files; a deletion has nothing to transcode and Tdarr drops missing files itself.
      if (context.deleted) return { status: 'unmatched', detail: `${who} is not told about deletions` };
      try {
        await api.call('POST', '/api/v2/scan-files', {
          body: { data: { scanConfig: { dbID: opts.libraryId, arrayOrPath: [context.file ?? path], mode: 'scanFindNew' } } },
        });
        return { status: 'scanned', detail: `library ${opts.libraryId}` };
      } catch (err) {
        return api.retry(err);
      }
    },
    async available() {
      try {
        await api.call('GET', '/api/v2/status');
        return { ok: true };
      } catch (err) {
        return { ok: false, error: api.scrub((err as Error).message) };
      }
    },
  };
}
