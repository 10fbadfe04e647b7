// "Say it once" for the Drive monitor: a drive whose polls keep failing is one ERROR line when it starts, a summary
// at most every 10 minutes while it lasts, and one line when its polling recovers; each retry is only DEBUG.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, tvTree, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const linesAt = (level: string) => h.log.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === level);

describe('a Google Drive that keeps failing', () => {
  it('polled on its backoff for an hour: one error, summaries at most every 10 minutes with a count, one line when it recovers', async () => {
    h = await startHarness();
    tvTree(h.drive);
    await h.monitor.pollOnce();
    const started = h.clock.now();
    h.drive.fail(500, { path: /^\/changes$/, times: 100_000 });
    let polls = 0;
    while (h.clock.now() - started < 40 * 60_000) {
      const s = await h.monitor.pollOnce();
      if (s.drives > 0) polls++;
      const next = h.monitor.status().drives[0]!.nextAttemptAt!;
      h.clock.set(Math.max(h.clock.now(), next));
    }
    expect(polls).toBeGreaterThanOrEqual(5);
    const errors = linesAt('error');
    expect(errors[0]!.msg).toMatch(/^Polling Google Drive '.+' failed: .*500/);
    // Polls 1, 3, 7, 15 and 31 minutes after the first (the backoff doubles): the summaries come with the polls
    // that are 10 minutes or more after the last line.
    expect(errors.slice(1).map((l) => l.msg.replace(/: Polling .*/, ''))).toEqual([
      'Still, for 15 min (4 more time(s) in the last 15 min)',
      'Still, for 31 min (1 more time(s) in the last 16 min)',
    ]);

    h.drive.recover();
    await h.monitor.pollOnce();
    await h.monitor.pollOnce();
    const recovered = linesAt('info').filter((l) => l.msg.startsWith('Google Drive polling recovered'));
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.msg).toMatch(new RegExp(`^Google Drive polling recovered for '.+' \\(after .+, seen ${polls} time\\(s\\)\\)$`));
  });
});
