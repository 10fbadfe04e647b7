// The idle trim: one full collection per quiet spell, never while requests come in; a collection that fails turns
// the trim off, is said once, and leaves the relay running.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fullCollection, IdleTrim, trimWhenIdle } from '../../src/idle-memory.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';

afterAll(() => killChildren());

const unused = () => {
  throw new Error('not expected');
};

describe('IdleTrim', () => {
  it('collects once after quietMs without a request, and again only after new activity has gone quiet', () => {
    let now = 0;
    let collections = 0;
    const trim = new IdleTrim({ quietMs: 10_000, now: () => now, collect: () => collections++, failed: unused });
    now = 9_999;
    expect(trim.tick()).toBe(false);
    now = 10_000;
    expect(trim.tick()).toBe(true);
    now = 60_000;
    expect(trim.tick()).toBe(false);
    trim.noteRequest();
    now = 65_000;
    expect(trim.tick()).toBe(false);
    now = 70_000;
    expect(trim.tick()).toBe(true);
    expect(collections).toBe(2);
  });

  it('a collection that throws is caught, said once, and turns the trim off for good', () => {
    let now = 0;
    const collect = vi.fn(() => {
      throw new ReferenceError('gc is not defined');
    });
    const failed = vi.fn();
    const trim = new IdleTrim({ quietMs: 10_000, now: () => now, collect, failed });
    now = 10_000;
    expect(trim.tick()).toBe(false);
    expect(trim.stopped).toBe(true);
    trim.noteRequest();
    now = 60_000;
    expect(trim.tick()).toBe(false);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith('ReferenceError: gc is not defined');
  });

  it("V8's full collection runs without --expose-gc on the command line", () => {
    expect(process.execArgv).not.toContain('--expose-gc');
    expect(() => fullCollection()()).not.toThrow();
  });
});

describe('trimWhenIdle', () => {
  it('stops looking after a failed collection: no error escapes its timer, the failure is told once', async () => {
    const server = new EventEmitter();
    const collect = vi.fn(() => {
      throw new Error('collector gone');
    });
    const failed = vi.fn();
    const stop = trimWhenIdle(server, failed, { quietMs: 0, everyMs: 5, collect });
    try {
      await vi.waitFor(() => expect(failed).toHaveBeenCalledTimes(1));
      server.emit('request');
      await new Promise((r) => setTimeout(r, 60));
      expect(collect).toHaveBeenCalledTimes(1);
      expect(failed).toHaveBeenCalledTimes(1);
      expect(failed).toHaveBeenCalledWith('Error: collector gone');
    } finally {
      stop();
    }
  });

  it('a server on a Node that ignores V8 flags set after start says once that the trim is off, and keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-idle-trim-'));
    const config = writeConfigFile(dir, { SERVER_PASS: 'c0ffeec0ffeec0ffeec0ffeec0ffee00', SERVER_IP: '127.0.0.1' });
    const preload = pathToFileURL(join(repoRoot, 'test', 'support', 'v8-flags-ignored.mjs')).href;
    const { child, url } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, nodeArgs: ['--import', preload] });
    // Quiet for 10 s, looked at every 5 s: the first collection is due 10-15 s after start.
    await child.waitFor(/The idle memory trim is off: V8's full collection failed \(ReferenceError: gc is not defined\)/, 30_000);
    // Past another look: still up, still said once.
    await new Promise((r) => setTimeout(r, 6_000));
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(child.proc.exitCode).toBeNull();
    expect(child.output().match(/The idle memory trim is off/g)).toHaveLength(1);
  }, 60_000);
});
