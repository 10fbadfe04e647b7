// Every target kind that speaks HTTP keeps its token home: a redirect to another server is a failed delivery whose
// message names the Location and the config key to change (here a TARGETS entry's URL), and the other server
// receives nothing.
import { createServer, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { silentLogger } from '../../src/log/logger.js';
import { buildTargets } from '../../src/targets/build.js';
import { closeServer, listenLocal } from '../support/net.js';

const reached: IncomingMessage['headers'][] = [];
const elsewhere = createServer((req, res) => (reached.push(req.headers), res.end('{}')));
let elsewhereUrl = '';
const moved = createServer((req, res) => res.writeHead(301, { location: `${elsewhereUrl}${req.url}` }).end());
let movedUrl = '';
beforeAll(async () => {
  elsewhereUrl = await listenLocal(elsewhere);
  movedUrl = await listenLocal(moved);
});
afterAll(async () => {
  await closeServer(elsewhere);
  await closeServer(moved);
});

describe('TARGETS entries redirected to another server', () => {
  for (const type of ['jellyfin', 'emby', 'plex', 'audiobookshelf'] as const) {
    it(`${type}: the scan fails naming the Location and the entry's URL; no token leaves`, async () => {
      const config = { ...defaultConfig(() => 'x'.repeat(32)), PLEX_ENABLED: false, TARGETS: [{ NAME: 'moved', TYPE: type, URL: movedUrl, TOKEN: 'entry-token-123' }] } as unknown as Config;
      const [target] = buildTargets(config, { clock: new ManualClock(), logger: silentLogger });
      const outcome = await target.scan('/data/media/tv/Show', { event: 'Download', source: 'sonarr', deleted: false });
      expect(outcome.status).toBe('retry');
      if (outcome.status !== 'retry') return;
      expect(outcome.targetDown).toBe(false);
      expect(outcome.error).toContain(`to ${elsewhereUrl}/`);
      expect(outcome.error).toContain(`set the URL of TARGETS entry "moved" to ${elsewhereUrl}`);
      expect(reached).toEqual([]);
    });
  }
});
