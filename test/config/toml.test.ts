// The TOML reader for autopulse configs (smol-toml under the import's limits): the forms autopulse's config.toml is
// written in, and a line-numbered refusal for everything else. Hostile files: foreign-config.test.ts.
import { describe, expect, it } from 'vitest';
import { ForeignConfigError } from '../../src/config/foreign-limits.js';
import { parseToml } from '../../src/config/toml.js';

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

  it('refuses "__proto__" as a key, quoted or not, naming it and its line', () => {
    expect(() => parseToml('a = 1\n"__proto__" = 1\n')).toThrow(/^line 2: the key '__proto__' is refused/);
    expect(() => parseToml('a = 1\n[b]\n__proto__.x = 1\n')).toThrow(/^line 3: the key '__proto__' \(at b.__proto__\) is refused/);
  });

  it.each([
    ['a = 1\na = 2', /^line 2: trying to redefine an already defined table or value$/],
    ['[a]\nx = 1\n[a]', /^line 3: trying to redefine/],
    ['a = "x', /^line 1: unfinished string/],
    ['a = yes', /^line 1: invalid value \(strings need quotes\)/],
    ['a.b.c = 1\n[a.b]', /^line 2: trying to redefine/],
    ['a = "\\d+"', /^line 1: unrecognised escape sequence .*literal string/],
    ['\n\nx = [1, 2', /^line 3: expected comma or end of structure/],
    ['[t]\nk = 1 junk', /^line 2: each key-value declaration must be followed by an end-of-line/],
    ['a = { b = 1 }\n[a]', /^line 2: trying to redefine/],
    ['key', /^line 1: incomplete key-value/],
  ])('refuses %j with its line', (text, message) => {
    expect(() => parseToml(text)).toThrow(ForeignConfigError);
    expect(() => parseToml(text)).toThrow(message);
  });
});
