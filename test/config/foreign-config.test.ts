// The reader of another tool's config (import-autopulse, import-autoscan) under its limits: each hostile file of the
// issue ("Closed by default, round two": an alias bomb, a long dotted key, deep nesting, prototype keys, a byte that
// is not UTF-8, a huge file) is refused with a sentence naming its line, in far less than a second of CPU, in every
// format it can be written in. The commands' own output for them: import-autopulse.test.ts.
import { describe, expect, it } from 'vitest';
import { parseForeignConfig, withinStack } from '../../src/config/foreign-config.js';
import { ForeignConfigError, MAX_ALIASES, MAX_BYTES, MAX_DEPTH, type ForeignFormat } from '../../src/config/foreign-limits.js';
import { aliasBomb } from '../support/hostile-files.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** What reading `input` as `format` refuses, and the CPU time it took (wall time varies with the machine's load). */
function refusal(format: ForeignFormat, input: string | Uint8Array) {
  const start = process.cpuUsage();
  let error: unknown;
  try {
    parseForeignConfig(typeof input === 'string' ? utf8(input) : input, format);
  } catch (err) {
    error = err;
  }
  const { user, system } = process.cpuUsage(start);
  expect(error).toBeInstanceOf(ForeignConfigError);
  const { reason, line } = error as ForeignConfigError;
  return { reason, line, cpuMs: (user + system) / 1000 };
}

const deep = 10_000;
const TOO_DEEP = new RegExp(`nested more than ${MAX_DEPTH} levels deep`);
const refused = (key: string) => new RegExp(`^the key '${key}'.* is refused`);

describe('hostile files are refused with their line, within a second', () => {
  it("the issue's alias bomb is 1 KB", () => {
    expect(aliasBomb.length).toBeGreaterThan(900);
    expect(aliasBomb.length).toBeLessThanOrEqual(1024);
  });

  it.each<[string, ForeignFormat, string, RegExp, number]>([
    ['a 1 KB alias bomb', 'yaml', aliasBomb, new RegExp(`^aliases \\(\\*name\\) expand to more than ${MAX_ALIASES} copies`), 3],
    ['more aliases than the limit', 'yaml', `a: &a 1\nb: [${Array(MAX_ALIASES + 1).fill('*a').join(', ')}]\n`, new RegExp(`^more than ${MAX_ALIASES} aliases`), 2],
    ['an 80 KB dotted key', 'toml', `a${'.a'.repeat(40_000)} = 1\n`, TOO_DEEP, 1],
    ['an 80 KB [table] header', 'toml', `x = 1\n[a${'.a'.repeat(40_000)}]\ny = 2\n`, TOO_DEEP, 2],
    ['10,000 nested flow lists', 'yaml', `${'['.repeat(deep)}${']'.repeat(deep)}`, TOO_DEEP, 1],
    ['10,000 nested flow mappings', 'yaml', `${'{a: '.repeat(deep)}1${'}'.repeat(deep)}`, TOO_DEEP, 1],
    ['10,000 nested block lists on one line', 'yaml', `x: 1\ny:\n  ${'- '.repeat(deep)}z\n`, TOO_DEEP, 3],
    ['mappings indented 100 levels deep', 'yaml', `${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1\n`, TOO_DEEP, MAX_DEPTH + 1],
    ['10,000 nested arrays', 'toml', `x = ${'['.repeat(deep)}${']'.repeat(deep)}\n`, TOO_DEEP, 1],
    ['10,000 nested inline tables', 'toml', `x = 1\ny = ${'{ a = '.repeat(deep)}1${' }'.repeat(deep)}\n`, TOO_DEEP, 2],
    ['10,000 nested arrays', 'json', `${'['.repeat(deep)}${']'.repeat(deep)}`, TOO_DEEP, 1],
    ['10,000 nested objects, one a line', 'json', `${'{"a":\n'.repeat(deep)}1${'}'.repeat(deep)}`, TOO_DEEP, MAX_DEPTH + 1],
    ['a __proto__ key', 'yaml', 'app:\n  port: 2875\n__proto__:\n  polluted: true\n', refused('__proto__'), 3],
    ['a quoted __proto__ key in a flow mapping', 'yaml', 'auth: {"__proto__": {admin: true}}\n', refused('__proto__'), 1],
    ['a __proto__ key brought in by a merge', 'yaml', 'x: &x\n  __proto__: 1\ny:\n  <<: *x\n', refused('__proto__'), 2],
    ['a constructor key', 'yaml', 'triggers:\n  sonarr:\n    constructor: 1\n', refused('constructor'), 3],
    ['a __proto__ key', 'toml', '[app]\nport = 2875\n\n[auth]\n"__proto__" = { admin = true }\n', refused('__proto__'), 5],
    ['a __proto__ table', 'toml', 'x = 1\n[triggers.__proto__]\ntype = "sonarr"\n', refused('__proto__'), 2],
    ['a prototype key after a multi-line string with brackets', 'toml', 'a = """\n[[not.a.table]]\nprototype = 1\n"""\nb = 1\nc.prototype = 2\n', refused('prototype'), 6],
    ['a constructor key written with an escape', 'toml', 'x = 1\n"\\u0063onstructor" = 1\n', refused('constructor'), 2],
    ['a __proto__ key', 'json', '{\n  "app": {"port": 2875},\n  "__proto__": {"admin": true}\n}\n', refused('__proto__'), 3],
    ['a prototype key after strings with brackets', 'json', '{\n  "a": "[{\\"",\n  "b": {\n    "prototype": 1\n  }\n}\n', refused('prototype'), 4],
  ])('%s (%s)', (_, format, text, reason, line) => {
    const refused = refusal(format, text);
    expect(refused.reason).toMatch(reason);
    expect(refused.line).toBe(line);
    expect(refused.cpuMs).toBeLessThan(1000);
  });

  it.each<ForeignFormat>(['toml', 'yaml', 'json'])('a password with a 0xFF byte (%s): the byte, its offset and its line', (format) => {
    const lines = { toml: ['[auth]', 'username = "admin"', 'password = "s3cr'], yaml: ['auth:', '  username: admin', '  password: "s3cr'], json: ['{"auth": {', '  "username": "admin",', '  "password": "s3cr'] }[format];
    const head = utf8(`${lines.join('\n')}`);
    const input = new Uint8Array([...head, 0xff, ...utf8(`t"${format === 'json' ? '}}' : ''}\n`)]);
    const refused = refusal(format, input);
    expect(refused.reason).toBe(`byte ${head.length} (0xFF) is not UTF-8: save the file as UTF-8 (read another way, a password or a path in it would silently change)`);
    expect(refused.line).toBe(3);
  });

  it('a file over the size limit is not parsed, whatever it holds', () => {
    const refused = refusal('yaml', `${'# padding\n'.repeat(MAX_BYTES / 10)}a: 1\n`);
    expect(refused.reason).toMatch(/^the file is larger than 256 KiB/);
    expect(refused.cpuMs).toBeLessThan(100);
  });

  it('a large file within the limit, in the slowest form (one YAML mapping), is read in time that grows with its keys, not their square; duplicates found', () => {
    const mapping = (n: number) => Array.from({ length: n }, (_, i) => `key${i}: ${i}`).join('\n');
    expect(mapping(16_000).length).toBeLessThan(MAX_BYTES);
    const cpuMs = (text: string) => {
      const start = process.cpuUsage();
      const settings = parseForeignConfig(utf8(text), 'yaml') as Record<string, number>;
      const { user, system } = process.cpuUsage(start);
      return { settings, ms: (user + system) / 1000 };
    };
    cpuMs(mapping(4_000)); // compiled first, so the measure below is of the reading, not of V8 warming up
    const small = cpuMs(mapping(4_000));
    const large = cpuMs(mapping(16_000));
    expect(large.settings.key15999).toBe(15_999);
    // Four times the keys: at most four times the work when each key is looked at once (less: the reading has a fixed
    // part), sixteen when each is compared with every other (yaml's own uniqueKeys did that: 16,000 keys took
    // seconds). A ratio, not a time, so a busy machine does not fail it.
    expect(large.ms).toBeLessThan(6 * small.ms + 50);
    const twice = refusal('yaml', `${mapping(16_000)}\nkey7: again\n`);
    expect(twice).toMatchObject({ reason: "the key 'key7' is given twice in one mapping (first on line 8)", line: 16_001 });
    expect(twice.cpuMs).toBeLessThan(6 * small.ms + 50);
  });

  it('the path in a refusal cuts each key to 40 characters on a character, never half an emoji', () => {
    const key = `${'k'.repeat(39)}😀😀`;
    const refused = refusal('json', `${`{"${key}":`.repeat(MAX_DEPTH + 1)}1${'}'.repeat(MAX_DEPTH + 1)}`);
    expect(refused.reason).not.toMatch(LONE_SURROGATE);
    expect(refused.reason).toContain(` (at ${'k'.repeat(39)}….${'k'.repeat(39)}…`);
  });

  it('an empty file, and a stack overflow anywhere in reading, are sentences too', () => {
    expect(refusal('toml', ' \n')).toMatchObject({ reason: 'the file is empty', line: undefined });
    const down = (n: number): number => down(n + 1) + 1;
    expect(() => withinStack(() => down(0))).toThrow(new ForeignConfigError('too deeply nested or too large to read (Maximum call stack size exceeded)'));
  });
});

describe('what stays readable', () => {
  it('the same settings in each format, a byte-order mark and nesting up to the limit', () => {
    const nested = `${'['.repeat(MAX_DEPTH - 1)}1${']'.repeat(MAX_DEPTH - 1)}`;
    const want = { auth: { username: 'terry', password: 'pässwörd' }, deep: JSON.parse(nested) as unknown };
    expect(parseForeignConfig(utf8(`\ufeffdeep = ${nested}\n[auth]\nusername = "terry"\npassword = "pässwörd"\n`), 'toml')).toEqual(want);
    expect(parseForeignConfig(utf8(`\ufeffauth:\n  username: terry\n  password: pässwörd\ndeep: ${nested}\n`), 'yaml')).toEqual(want);
    expect(parseForeignConfig(utf8(`\ufeff${JSON.stringify(want)}`), 'json')).toEqual(want);
  });
});
