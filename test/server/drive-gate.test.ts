// The Google Drive monitor passes every path through the path gate: a Drive name that would climb out of its
// mapped folder, or that holds a control character, is a WARN naming the rule, not a scan.
import { afterEach, describe, expect, it } from 'vitest';
import { describeRefusal, gatePath } from '../../src/paths/gate.js';
import { startHarness, tvTree, type Harness } from '../drive/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const mappings = { '/mnt/unionfs/Media/': ['My Drive/Media/'] };
const gate = (p: string) => {
  const v = gatePath(p, mappings);
  return v.ok ? v : { ok: false as const, message: describeRefusal(p, v) };
};

describe('drive monitor and the path gate', () => {
  it('folders named ".." that climb out of My Drive/Media/, and a name with a newline, are left out with a WARN', async () => {
    h = await startHarness({ deps: { gate } });
    const t = tvTree(h.drive);
    await h.monitor.pollOnce();
    const up1 = h.drive.addFolder('..', t.tv, { silent: true });
    const up2 = h.drive.addFolder('..', up1, { silent: true });
    const up3 = h.drive.addFolder('..', up2, { silent: true });
    h.drive.addFile('escape.mkv', up3);
    h.drive.addFile('line\nbreak.mkv', t.season);
    h.drive.addFile('fine.mkv', t.season);
    const summary = await h.monitor.pollOnce();

    expect(h.enqueued.map((r) => r.path)).toEqual(['My Drive/Media/TV/The Expanse (2015)/Season 01/fine.mkv']);
    expect(summary.counts.enqueued).toBe(1);
    const warnings = h.log.lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn' && /Not scanning a Google Drive file/.test(l.msg));
    expect(warnings.map((w) => /\((escapes-prefix|control-character)\)/.exec(w.msg)?.[1]).sort()).toEqual(['control-character', 'escapes-prefix']);
    expect(warnings.every((w) => typeof w.fileId === 'string')).toBe(true);
  });
});
