// Benchmark 9 — folding one large request: a Sonarr "On Import Complete" webhook naming SERVER_MAX_REQUEST_PATHS
// (the default, 1,000) files, each in a folder of its own, sent to the service as users run it (default config,
// the real disk check, a log file, a Plex whose library holds the folders). Figure: the longest the event loop
// was held while the request was received, folded and committed (perf_hooks' event-loop delay, 1 ms resolution),
// so /health and other webhooks wait no longer than that. Baseline from the same run: JSON.parse of the same
// body, the one step any receiver takes. Also: one more path than the limit is refused (413) before folding.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { defaultConfig } from '../src/config/load.js';
import type { Config } from '../src/config/schema.js';
import { createLogger } from '../src/log/logger.js';
import { createService } from '../src/service.js';
import { FakePlex } from '../test/fakes/plex.js';
import { log, median, SECRET, standalone, type Figure } from './support.js';

const ROUNDS = 7;

/** What Sonarr v4 sends for a finished download of `n` files (WebhookImportCompletePayload), each in its own season folder. */
function importComplete(show: string, n: number): string {
  return JSON.stringify({
    series: { id: 17, title: show, titleSlug: show.toLowerCase(), path: `/tv/${show}`, tvdbId: 289590, imdbId: 'tt4158110', type: 'standard', year: 2019 },
    episodes: Array.from({ length: n }, (_, i) => ({ id: 5000 + i, episodeNumber: 1, seasonNumber: i + 1, title: `Episode ${i + 1}`, airDate: '2019-12-22' })),
    episodeFiles: Array.from({ length: n }, (_, i) => ({
      id: 9000 + i,
      relativePath: `Season ${i + 1}/${show} - S${i + 1}E01 - Episode WEBDL-1080p.mkv`,
      path: `/tv/${show}/Season ${i + 1}/${show} - S${i + 1}E01 - Episode WEBDL-1080p.mkv`,
      quality: 'WEBDL-1080p',
      qualityVersion: 1,
      releaseGroup: 'NTb',
      size: 3315040000,
    })),
    downloadClient: 'NZBGet',
    downloadClientType: 'Nzbget',
    downloadId: 'NZBGet_1133',
    release: { releaseTitle: `${show}.S01-S99.1080p.WEB-DL`, indexer: 'Indexer', size: 3315040000 },
    fileCount: n,
    sourcePath: `/downloads/${show}`,
    destinationPath: `/tv/${show}`,
    eventType: 'Download',
    instanceName: 'Sonarr',
  });
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-bench-fold-'));
  const config = { ...defaultConfig(() => SECRET), PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] } } as Config;
  const limit = config.SERVER_MAX_REQUEST_PATHS;
  const logger = createLogger({ level: 'info', console: null, file: join(dir, 'scanrelay.log'), buffered: true, secrets: [SECRET] });
  const service = await createService({ config, queuefile: join(dir, 'queue.db'), logger });
  const post = (body: string) => service.app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.9' }, payload: body });
  try {
    const stalls: number[] = [];
    const parses: number[] = [];
    const totals: number[] = [];
    // Round 0 warms the code paths and the library cache; it is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      const body = importComplete(`Show ${round}`, limit);
      const p0 = performance.now();
      JSON.parse(body);
      const parse = performance.now() - p0;
      const h = monitorEventLoopDelay({ resolution: 1 });
      h.enable();
      const t0 = performance.now();
      const res = await post(body);
      const total = performance.now() - t0;
      // One more turn so a block at the very end is seen by the monitor's timer.
      await new Promise((r) => setTimeout(r, 5));
      h.disable();
      if (res.statusCode !== 200) throw new Error(`the ${limit}-path request was answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      if (round === 0) continue;
      // The monitor reports the delay beyond its own 1 ms timer.
      stalls.push(h.max / 1e6);
      parses.push(parse);
      totals.push(total);
    }
    const queued = service.queue.count();
    const over = await post(importComplete('Too Long', limit + 1));
    const stall = median(stalls);
    log(`fold: stalls ${stalls.map((s) => s.toFixed(1)).join(', ')} ms; whole requests ${totals.map((s) => s.toFixed(0)).join(', ')} ms; ${queued} folders queued`);
    return [
      {
        id: '9a',
        name: `fold: longest event-loop stall while one ${limit}-path webhook is folded (median of ${ROUNDS})`,
        value: stall,
        unit: 'ms',
        baseline: { label: 'JSON.parse of the same body', value: median(parses), unit: 'ms' },
        ratio: stall / median(parses),
        target: '≤ 50 ms',
        pass: stall <= 50,
        note: `whole request ${median(totals).toFixed(0)} ms; ${queued} folders queued of ${(ROUNDS + 1) * limit}`,
      },
      {
        id: '9b',
        name: `fold: a request of ${limit + 1} paths is refused before folding`,
        value: over.statusCode,
        unit: '',
        target: '413',
        pass: over.statusCode === 413,
      },
    ];
  } finally {
    await service.close();
    await plex.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await standalone(import.meta.url, run);
