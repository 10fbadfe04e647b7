// hash= reads only a regular file inside a library folder, of at most HASH_MAX_BYTES (src/hash/scope.ts,
// src/hash/read.ts). Each test replays one way hash= was abused: /dev/zero, a path in no library, a link out of the
// library, a FIFO, a file too large, and the SHA-256 of a file the relay can read landing in history, the log and
// the notifications. A refused request is a 400 with the reason, holds and stores nothing, and is logged once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { HASH_MAX_BYTES } from '../../src/hash/read.js';
import { notifySchema } from '../../src/notify/schema.js';
import { startRecorder, type Recorder } from '../fakes/recorder.js';
import { hashLibrary, sha256, type HashLibrary } from '../support/hash-library.js';
import { until } from '../support/until.js';

let lib: HashLibrary;
let recorder: Recorder | undefined;
afterEach(async () => {
  await lib?.t.close();
  await recorder?.close();
  recorder = undefined;
});

const ANY_HASH = sha256('whatever the sender says');

/** Nothing held, nothing kept in the queue file, nothing queued or recorded. */
const nothingKept = () => {
  expect(lib.t.service.hashHold.size).toBe(0);
  expect(lib.t.service.queue.held.all()).toEqual([]);
  expect(lib.t.service.queue.count()).toBe(0);
  expect(lib.t.service.queue.history()).toEqual([]);
};

describe('hash= reads only a regular file inside a library', () => {
  it('/dev/zero, and a path climbing out of the library to a file outside, are refused: 400 with the reason', async () => {
    lib = await hashLibrary();
    const zero = await lib.ask('/dev/zero', ANY_HASH);
    expect(zero.statusCode).toBe(400);
    expect(zero.json()).toMatch(/'\/dev\/zero' is in no library folder of any media server, and hash= reads only files inside one/);
    // Climbing out of the library with "..": the path gate's own refusal, before any library is asked.
    const climbed = await lib.ask(`/media/tv/../../../../../../..${lib.outside}/hostname`, ANY_HASH);
    expect(climbed.statusCode).toBe(400);
    expect(climbed.json()).toContain('(escapes-prefix)');
    const direct = await lib.ask(join(lib.outside, 'hostname'), ANY_HASH);
    expect(direct.statusCode).toBe(400);
    nothingKept();
  });

  it('a symbolic link inside the library that leads outside it (to a file, a folder, /dev/zero) is refused', async () => {
    lib = await hashLibrary();
    symlinkSync(join(lib.outside, 'hostname'), join(lib.library, 'Show/Season 1/e01.mkv'));
    symlinkSync('/dev/zero', join(lib.library, 'Show/Season 1/e02.mkv'));
    symlinkSync(lib.outside, join(lib.library, 'Escape'));
    for (const path of ['/media/tv/Show/Season 1/e01.mkv', '/media/tv/Show/Season 1/e02.mkv', '/media/tv/Escape/hostname']) {
      const res = await lib.ask(path, ANY_HASH);
      expect(res.statusCode, path).toBe(400);
      expect(res.json()).toMatch(/leads \(through a symbolic link\) to a place outside its library folder/);
    }
    // A link that stays inside the library is read as the file it names.
    writeFileSync(join(lib.library, 'Show/Season 1/real.mkv'), 'episode');
    symlinkSync(join(lib.library, 'Show/Season 1/real.mkv'), join(lib.library, 'Show/Season 1/alias.mkv'));
    expect((await lib.ask('/media/tv/Show/Season 1/alias.mkv', sha256('episode'))).statusCode).toBe(200);
    await until(() => lib.t.service.queue.count() === 1);
  });

  it('a FIFO or a folder inside the library is not a regular file: refused, never opened for reading', async () => {
    lib = await hashLibrary();
    execFileSync('mkfifo', [join(lib.library, 'Show/Season 1/pipe.mkv')]);
    const fifo = await lib.ask('/media/tv/Show/Season 1/pipe.mkv', ANY_HASH);
    expect(fifo.statusCode).toBe(400);
    expect(fifo.json()).toContain('is not a regular file (a folder, device, FIFO or socket)');
    mkdirSync(join(lib.library, 'Show/Season 2.mkv'));
    expect((await lib.ask('/media/tv/Show/Season 2.mkv', ANY_HASH)).statusCode).toBe(400);
    nothingKept();
  });

  it(`a file larger than HASH_MAX_BYTES (${HASH_MAX_BYTES / 1024 ** 3} GiB) is refused before a byte is read`, async () => {
    lib = await hashLibrary();
    const huge = join(lib.library, 'Show/Season 1/huge.mkv');
    writeFileSync(huge, '');
    truncateSync(huge, HASH_MAX_BYTES + 1); // sparse: no disk space used
    const started = Date.now();
    const res = await lib.ask('/media/tv/Show/Season 1/huge.mkv', ANY_HASH);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toContain(`is ${HASH_MAX_BYTES + 1} bytes, more than the 64 GiB hash= reads`);
    expect(Date.now() - started).toBeLessThan(2_000);
    nothingKept();
  });

  it('with no media server to ask for its library folders, the answer is 503 with Retry-After, and nothing is held', async () => {
    lib = await hashLibrary();
    writeFileSync(join(lib.library, 'Show/Season 1/e01.mkv'), 'episode');
    lib.t.plex.failure = { status: 500 };
    const res = await lib.ask('/media/tv/Show/Season 1/e01.mkv', ANY_HASH);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
    expect(res.json()).toMatch(/^no media server could be asked for its library folders \(plex: could not list libraries: .*try again later$/);
    nothingKept();
  });

  it('refusals are logged once per kind with what to do, then counted, not once per request', async () => {
    lib = await hashLibrary();
    for (let i = 0; i < 5; i++) expect((await lib.ask('/dev/zero', ANY_HASH)).statusCode).toBe(400);
    const lines = lib.t.logs.filter((l) => l.includes('Refused a hash= request'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('send the path of a file in a library');
    expect(lines[0]).toContain('Answered 400; nothing is held or read');
    expect(JSON.parse(lines[0]).level).toBe('warn');
  });
});

describe("the file's own SHA-256 is never written anywhere", () => {
  it('not in the answer, the log, history or a notification: only "does not match the SHA-256 asked for"', async () => {
    recorder = await startRecorder(() => ({ status: 204 }));
    lib = await hashLibrary({
      config: { NOTIFY: notifySchema().parse([{ NAME: 'hook', TYPE: 'json', URL: `${recorder.url}/in`, EVENTS: ['not-found'] }]) as Config['NOTIFY'] },
    });
    const secretish = 'nas-in-the-attic\n';
    writeFileSync(join(lib.library, 'Show/Season 1/e01.mkv'), secretish);
    const finished: string[] = [];
    lib.t.service.activity.on('finished', (f) => finished.push(JSON.stringify(f)));

    // Outside the library: refused before any read.
    const outside = await lib.ask(join(lib.outside, 'hostname'), ANY_HASH);
    expect(outside.statusCode).toBe(400);
    // Inside, with a hash that is not the file's: held, read three times, recorded not-found.
    const inside = await lib.ask('/media/tv/Show/Season 1/e01.mkv', ANY_HASH);
    expect(inside.statusCode).toBe(200);
    await until(() => lib.t.service.queue.history().length === 1);
    lib.t.service.notifications.tick();
    await lib.t.service.notifications.flush();
    await until(() => recorder!.requests.length === 1);

    const [line] = lib.t.service.queue.history();
    expect(line).toMatchObject({ outcome: 'not-found', folder: '/data/media/tv/Show/Season 1' });
    expect(line.detail).toContain('on the last check it did not have the SHA-256 asked for');
    const everywhere = [outside.body, inside.body, ...lib.t.logs, JSON.stringify(lib.t.service.queue.history()), ...finished, JSON.stringify(recorder.requests)].join('\n');
    expect(everywhere).not.toContain(sha256(secretish));
    // No other 64-digit hex but the one the sender asked for appears either.
    const hexes = new Set(everywhere.match(/\b[0-9a-f]{64}\b/gi) ?? []);
    expect([...hexes].filter((h) => h.toLowerCase() !== ANY_HASH)).toEqual([]);
  });
});
