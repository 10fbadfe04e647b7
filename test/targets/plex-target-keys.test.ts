// A TARGETS "plex" entry's own empty-trash and analyze keys: what the schema accepts, how each falls back to its
// PLEX_* key (EMPTY_TRASH only with the entry's own DATABASE_PATH), and the clock every pause runs on.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../src/clock.js';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { buildTargets } from '../../src/targets/build.js';
import type { ScanContext } from '../../src/scan.js';
import { FakePlex } from '../fakes/plex.js';
import { scanAndFollow } from '../support/follow.js';
import { configFiles } from '../support/config-file.js';
import { auditedSink } from '../support/log-audit.js';

const files = configFiles('scanrelay-target-keys-');
afterAll(() => files.cleanup());
const { load, problem } = files;

const entry = (over: object = {}) => ({ NAME: 'plex-4k', TYPE: 'plex', URL: 'http://plex4k:32400', TOKEN: 't', ...over });

describe('TARGETS entry keys for empty trash and analyze', () => {
  it('accepts them, in the config file style', () => {
    const [t] = load({
      TARGETS: [
        entry({
          DATABASE_PATH: '/plex4k/com.plexapp.plugins.library.db',
          EMPTY_TRASH: true,
          EMPTY_TRASH_MAX_FILES: 25,
          EMPTY_TRASH_CONTROL_FILES: '/mnt/4k/mounted.bin',
          EMPTY_TRASH_ZERO_DELETED: true,
          ANALYZE_TYPE: 'Deep',
          ANALYZE_DIRECTORY: false,
        }),
      ],
    }).TARGETS;
    expect(t).toMatchObject({
      EMPTY_TRASH: true,
      EMPTY_TRASH_MAX_FILES: 25,
      // A lone string is a one-item list, as for PLEX_EMPTY_TRASH_CONTROL_FILES.
      EMPTY_TRASH_CONTROL_FILES: ['/mnt/4k/mounted.bin'],
      EMPTY_TRASH_ZERO_DELETED: true,
      ANALYZE_TYPE: 'deep',
      ANALYZE_DIRECTORY: false,
    });
  });

  it('leaves them unset when absent, so the PLEX_* keys apply', () => {
    const [t] = configSchema().parse({ TARGETS: [entry()] }).TARGETS;
    for (const key of ['EMPTY_TRASH', 'EMPTY_TRASH_MAX_FILES', 'EMPTY_TRASH_CONTROL_FILES', 'EMPTY_TRASH_ZERO_DELETED', 'ANALYZE_TYPE', 'ANALYZE_DIRECTORY'] as const) {
      expect(t[key]).toBeUndefined();
    }
  });

  it.each([
    [{ EMPTY_TRASH: 'yes' }, 'TARGETS[0].EMPTY_TRASH: expected true or false, got "yes"'],
    [{ EMPTY_TRASH_MAX_FILES: 2.5 }, 'TARGETS[0].EMPTY_TRASH_MAX_FILES: expected a whole number, 0 or more, got 2.5'],
    [{ EMPTY_TRASH_MAX_FILES: -1 }, 'TARGETS[0].EMPTY_TRASH_MAX_FILES: expected a whole number, 0 or more, got -1'],
    [{ EMPTY_TRASH_MAX_FILES: '100' }, 'TARGETS[0].EMPTY_TRASH_MAX_FILES: expected a whole number, 0 or more, got "100"'],
    [{ EMPTY_TRASH_CONTROL_FILES: [''] }, 'TARGETS[0].EMPTY_TRASH_CONTROL_FILES[0]: expected a non-empty string, got ""'],
    [{ EMPTY_TRASH_CONTROL_FILES: 3 }, 'TARGETS[0].EMPTY_TRASH_CONTROL_FILES: expected a list of strings, got 3'],
    [{ EMPTY_TRASH_ZERO_DELETED: 1 }, 'TARGETS[0].EMPTY_TRASH_ZERO_DELETED: expected true or false, got 1'],
    [{ ANALYZE_TYPE: 'full' }, 'TARGETS[0].ANALYZE_TYPE: expected one of "off", "basic", "deep", got "full"'],
    [{ ANALYZE_DIRECTORY: 'true' }, 'TARGETS[0].ANALYZE_DIRECTORY: expected true or false, got "true"'],
  ])('rejects %j with a clear message', (over, message) => {
    expect(problem({ TARGETS: [entry(over)] })).toBe(message);
  });
});

describe('each Plex in TARGETS with its own settings', () => {
  const FOLDER = '/data/media/tv/Show/Season 01';
  const FILE = `${FOLDER}/Show - S01E01.mkv`;
  const ctx: ScanContext = { event: 'Download', source: 'sonarr', file: FILE, deleted: false };
  const names = ['inherits', 'nodb', 'off', 'strict', 'analyzer'] as const;
  let fakes: Record<(typeof names)[number], FakePlex>;
  let logs: string[];

  beforeEach(async () => {
    fakes = Object.fromEntries(
      await Promise.all(names.map(async (name) => [name, await new FakePlex({ token: 'plex-token-1234' }).start()] as const)),
    ) as typeof fakes;
    for (const f of Object.values(fakes)) {
      f.scanPolls = 1;
      f.onDisk.add(FILE);
    }
    logs = [];
  });
  afterEach(async () => {
    await Promise.all(Object.values(fakes).map((f) => f.stop()));
  });

  it('EMPTY_TRASH follows PLEX_EMPTY_TRASH only with a DATABASE_PATH; the other keys follow their PLEX_* key unless set', async () => {
    const config = configSchema().parse({
      PLEX_ENABLED: false,
      PLEX_EMPTY_TRASH: true,
      PLEX_EMPTY_TRASH_MAX_FILES: 5,
      PLEX_EMPTY_TRASH_CONTROL_FILES: [],
      PLEX_ANALYZE_TYPE: 'off',
      TARGETS: [
        { NAME: 'inherits', TYPE: 'plex', URL: fakes.inherits.url, TOKEN: fakes.inherits.token, DATABASE_PATH: '/db/inherits.db' },
        { NAME: 'nodb', TYPE: 'plex', URL: fakes.nodb.url, TOKEN: fakes.nodb.token, EMPTY_TRASH: true },
        { NAME: 'off', TYPE: 'plex', URL: fakes.off.url, TOKEN: fakes.off.token, DATABASE_PATH: '/db/off.db', EMPTY_TRASH: false },
        { NAME: 'strict', TYPE: 'plex', URL: fakes.strict.url, TOKEN: fakes.strict.token, DATABASE_PATH: '/db/strict.db', EMPTY_TRASH_MAX_FILES: 2 },
        {
          NAME: 'analyzer',
          TYPE: 'plex',
          URL: fakes.analyzer.url,
          TOKEN: fakes.analyzer.token,
          ANALYZE_TYPE: 'basic',
          ANALYZE_DIRECTORY: false,
        },
      ],
    });
    const opened: string[] = [];
    const sink = auditedSink((text) => logs.push(text));
    const clock = new ManualClock();
    const targets = buildTargets(config, {
      clock,
      logger: createLogger({ level: 'debug', console: sink }),
      // Every database counts 3 deleted items in every section: the per-entry keys decide what happens.
      plexDatabase: (path) => {
        opened.push(path);
        return { deletedCount: async () => 3 };
      },
    });
    expect(targets.map((t) => t.name)).toEqual([...names]);
    expect(opened).toEqual(['/db/inherits.db', '/db/off.db', '/db/strict.db']);
    for (const t of targets) await scanAndFollow(t, FOLDER, ctx, clock);

    expect(fakes.inherits.emptiedTrash).toEqual(['2']);
    expect(fakes.nodb.emptiedTrash).toEqual([]);
    expect(fakes.off.emptiedTrash).toEqual([]);
    expect(fakes.strict.emptiedTrash).toEqual([]);
    expect(fakes.analyzer.emptiedTrash).toEqual([]);
    const msgs = logs.map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).toContain(
      'TARGETS "nodb": EMPTY_TRASH is true but the entry has no DATABASE_PATH, so its trash is never emptied: the number of deleted items that guards it must come from that Plex\'s own database.',
    );
    expect(msgs.some((m) => m.includes('EMPTY_TRASH needs the number of deleted items from this Plex\'s database (DATABASE_PATH of TARGETS "nodb")'))).toBe(true);
    expect(msgs.some((m) => m.includes('3 items are marked deleted, more than EMPTY_TRASH_MAX_FILES of TARGETS "strict" (default: PLEX_EMPTY_TRASH_MAX_FILES) (2)'))).toBe(true);

    // PLEX_ANALYZE_TYPE off everywhere but where the entry says otherwise.
    expect(fakes.analyzer.analyzed).toEqual([fakes.analyzer.library.get(FILE)!.ratingKey]);
    for (const name of ['inherits', 'nodb', 'off', 'strict'] as const) expect(fakes[name].analyzed).toEqual([]);
  });
});

describe('Clock.sleep', () => {
  it('a ManualClock moves its time by the pause and returns at once; overlapping pauses end at their own deadline', async () => {
    const clock = new ManualClock(0);
    const started = performance.now();
    await clock.sleep(3_600_000);
    expect(clock.now()).toBe(3_600_000);
    await Promise.all([clock.sleep(10_000), clock.sleep(10_000), clock.sleep(5_000)]);
    expect(clock.now()).toBe(3_610_000);
    clock.advance(60_000);
    await clock.sleep(0);
    expect(clock.now()).toBe(3_670_000);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('the system clock really waits', async () => {
    const started = performance.now();
    await systemClock.sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
