// The idle trim: one full collection per quiet spell, never while requests come in, where Node exposes a collector;
// a collection that fails turns the trim off, is said once, and leaves the relay running.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { fullCollection, IdleTrim, trimWhenIdle } from '../../src/idle-memory.js';

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

  it("uses Node's exposed gc when there is one, and sets no V8 flag at run time to get one", () => {
    expect(process.execArgv).not.toContain('--expose-gc');
    expect(fullCollection()).toBeUndefined();
    const gc = vi.fn();
    (globalThis as { gc?: unknown }).gc = gc;
    try {
      fullCollection()!();
      // The memory-reducing flavour: a regular one leaves the freed pages resident in V8's page pool on Node 24.
      expect(gc).toHaveBeenCalledWith({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    } finally {
      delete (globalThis as { gc?: unknown }).gc;
    }
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

  it('without a collector it looks at nothing: no timer, no failure said', () => {
    const server = new EventEmitter();
    const failed = vi.fn();
    const stop = trimWhenIdle(server, failed, { quietMs: 0, everyMs: 5 });
    expect(server.listenerCount('request')).toBe(0);
    stop();
    expect(failed).not.toHaveBeenCalled();
  });
});
