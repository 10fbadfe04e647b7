// Say it once: a service started with its Plex stopped and no Plex database in reach writes each message at most
// once in its first minute (the database, the target down, its probes), instead of one line per retry.
import { afterEach, describe, expect, it } from 'vitest';
import { testService, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => t?.close());

describe('the first minute with Plex down and no Plex database', () => {
  it('writes no message twice', async () => {
    t = await testService({ config: { PLEX_LOCAL_URL: 'http://127.0.0.1:1' } });
    await t.service.listen(0, '127.0.0.1');
    await expect.poll(() => t!.service.readiness.state().ready).toBe(true);
    for (let s = 0; s < 60; s++) {
      t.clock.advance(1_000);
      await t.service.processor.tick();
    }
    const messages = t.logs.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level !== 'debug').map((l) => l.msg.replace(/\d+/g, 'N'));
    const repeated = [...new Set(messages.filter((m, i) => messages.indexOf(m) !== i))];
    expect(repeated).toEqual([]);
    // And the condition was said: the target is down, once.
    expect(messages.filter((m) => m.includes('is unavailable'))).toHaveLength(1);
  });
});
