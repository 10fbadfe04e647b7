// The TOML reader for autopulse configs: the forms autopulse's config.toml is written in, and a line-numbered
// refusal for everything else.
import { describe, expect, it } from 'vitest';
import { parseToml, TomlError } from '../../src/config/toml.js';

describe('parseToml', () => {
  it('reads tables, arrays of tables, dotted and quoted keys, inline tables, arrays and comments', () => {
    const doc = parseToml(
      [
        'anchors = ["/mnt/a", \'/mnt/b\',] # trailing comma',
        '[app]',
        'port = 2_875',
        '[triggers.sonarr]',
        'type = "sonarr"',
        "rewrite = { from = '^/tv/(.*)$', to = \"/media/tv/$1\" }",
        'timer.wait = 30',
        '[triggers.sonarr.event_timers.download]',
        'wait = 10',
        '[[triggers.radarr.rewrite]]',
        'from = "/a"',
        'to = "/b"',
        '[[triggers.radarr.rewrite]]',
        'from = "/c"',
        'to = "/d"',
        '[triggers.radarr]',
        'type = "radarr"',
        '[targets."my plex"]',
        'ratio = 1.5e3',
        'list = [',
        '  1, # one',
        '  -2,',
        '  0x1F,',
        ']',
        'on = true',
      ].join('\n'),
    );
    expect(doc).toEqual({
      anchors: ['/mnt/a', '/mnt/b'],
      app: { port: 2875 },
      triggers: {
        sonarr: { type: 'sonarr', rewrite: { from: '^/tv/(.*)$', to: '/media/tv/$1' }, timer: { wait: 30 }, event_timers: { download: { wait: 10 } } },
        radarr: { rewrite: [{ from: '/a', to: '/b' }, { from: '/c', to: '/d' }], type: 'radarr' },
      },
      targets: { 'my plex': { ratio: 1500, list: [1, -2, 31], on: true } },
    });
  });

  it('reads the four kinds of string', () => {
    const doc = parseToml('a = "tab\\there \\u00e9"\nb = \'C:\\path\\no escapes\'\nc = """\nline one\nline two"""\nd = \'\'\'\n^/x/\\d+$\'\'\'\ne = """a \\\n    b"""\n');
    expect(doc).toEqual({ a: 'tab\there é', b: 'C:\\path\\no escapes', c: 'line one\nline two', d: '^/x/\\d+$', e: 'a b' });
  });

  it('keeps "__proto__" as a plain key', () => {
    const doc = parseToml('"__proto__" = 1\n') as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
  });

  it.each([
    ['a = 1\na = 2', /line 2: the key 'a' is defined twice/],
    ['[a]\nx = 1\n[a]', /line 3: table \[a\] is defined twice/],
    ['a = "x', /line 1: a string that is never closed/],
    ['a = 1979-05-27', /line 1: dates and times/],
    ['a = yes', /line 1: 'yes' is not a TOML value/],
    ['a.b.c = 1\n[a.b]', /line 2: table \[a.b\] is defined twice/],
    ['a = "\\d+"', /line 1: unknown escape \\d .*literal string/],
    ['\n\nx = [1, 2', /line 3: an array that is never closed/],
    ['[t]\nk = 1 junk', /line 2: expected the end of the line, got 'junk'/],
    ['a = { b = 1 }\n[a]', /line 2: \[a\] names a key that already holds a value/],
    ['key', /line 1: expected '=' after the key 'key'/],
  ])('refuses %j with its line', (text, message) => {
    expect(() => parseToml(text)).toThrow(TomlError);
    expect(() => parseToml(text)).toThrow(message);
  });
});
