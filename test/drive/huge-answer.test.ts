// A Drive (or a gateway in front of it) answering a changes page with 50 MB, replayed against the fake Drive on
// 127.0.0.1: each try stops at the page's cap (src/http/answer-caps.ts) and is retried with backoff as a 5xx is, the
// poll then fails as any failing poll does, and the cap is said in one line however many answers it dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { DRIVE_PAGE } from '../../src/http/answer-caps.js';
import { until } from '../support/until.js';
import { startHarness, tvTree, type Harness } from './harness.js';

const SOCKET_SLACK = 16 * 1024 * 1024;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const messages = (level: string) => h.log.lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === level).map((l) => l.msg);

describe('a Drive changes page of 50 MB', () => {
  it('is dropped at 16 MiB on each try, fails the poll like a 500, and is said once', async () => {
    h = await startHarness();
    tvTree(h.drive);
    await h.monitor.pollOnce();
    h.drive.flooding = { path: /^\/changes$/, bytes: 50 * 1000 * 1000 };
    await h.monitor.pollOnce();
    h.clock.set(h.monitor.status().drives[0]!.nextAttemptAt!);
    await h.monitor.pollOnce();
    // Five tries a poll (DriveApi's maxAttempts), each cut off near the cap.
    await until(() => h.drive.floods.length === 10, { what: () => `${h.drive.floods.length} floods` });
    for (const f of h.drive.floods) expect(f.sent).toBeLessThan(DRIVE_PAGE.bytes + SOCKET_SLACK);
    const said = `Google Drive answered /changes with more than 16 MiB, the most ${DRIVE_PAGE.what} needs: the answer was dropped unread`;
    expect(messages('warn')).toEqual([said]);
    expect(messages('error')[0]).toBe(`Polling Google Drive 'My Drive' failed: ${said}`);

    h.drive.flooding = undefined;
    h.clock.set(h.monitor.status().drives[0]!.nextAttemptAt!);
    const after = await h.monitor.pollOnce();
    expect(after.drives).toBeGreaterThan(0);
    expect(messages('info').some((m) => m.startsWith('Google Drive polling recovered'))).toBe(true);
  });
});
