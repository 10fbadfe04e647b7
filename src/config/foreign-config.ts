// Another tool's config file read for an import (autopulse's TOML, YAML or JSON, autoscan's YAML): at most
// MAX_BYTES read, strict UTF-8, then the format's parser under the limits of foreign-limits.ts. The one way to the
// parsers (toml.ts, yaml.ts): the import commands load this module with import(), so its bundle chunk holds yaml
// and smol-toml, and no other command, nor the server, pays for them (docs/performance.md).
import { closeSync, openSync, readSync } from 'node:fs';
import { valueTree } from './file-positions.js';
import { checkTree, ForeignConfigError, MAX_BYTES, type ForeignFormat } from './foreign-limits.js';
import { jsonErrorText } from './json-file.js';
import { parseToml } from './toml.js';
import { parseYaml } from './yaml.js';

/** The settings in `file`, or a ForeignConfigError (without the file's name, which the caller adds). */
export function readForeignConfig(file: string, format: ForeignFormat): unknown {
  let bytes: Uint8Array;
  try {
    bytes = readAtMost(file, MAX_BYTES + 1);
  } catch (err) {
    throw new ForeignConfigError(`cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseForeignConfig(bytes, format);
}

export function parseForeignConfig(bytes: Uint8Array, format: ForeignFormat): unknown {
  if (bytes.length > MAX_BYTES) throw new ForeignConfigError(`the file is larger than ${MAX_BYTES / 1024} KiB, which no autopulse or autoscan config needs (they are a few KB); it was not read`);
  const text = strictUtf8(bytes);
  if (text.trim() === '') throw new ForeignConfigError('the file is empty');
  return withinStack(() => {
    if (format === 'toml') return parseToml(text);
    if (format === 'yaml') return parseYaml(text);
    return parseJsonSettings(text);
  });
}

/**
 * A RangeError (the call stack or an allocation overflowing) as the reader's error. The limits keep the parsers
 * from it; this is for what they do not foresee, so a file is never answered with a stack trace.
 */
export function withinStack<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof RangeError) throw new ForeignConfigError(`too deeply nested or too large to read (${err.message})`);
    throw err;
  }
}

/** At most `limit` bytes of a file, so a huge file, a device or a pipe is never read whole. */
function readAtMost(file: string, limit: number): Uint8Array {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(limit);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, limit - length, null);
      length += n;
      if (n === 0 || length === limit) return buffer.subarray(0, length);
    }
  } finally {
    closeSync(fd);
  }
}

// Fatal: a byte that is not UTF-8 stops the import instead of becoming U+FFFD, which would change a password or a
// path without a word. A byte-order mark is dropped.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function strictUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    const offset = firstInvalidByte(bytes);
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
    const byte = bytes[offset]?.toString(16).toUpperCase().padStart(2, '0');
    throw new ForeignConfigError(`byte ${offset} (0x${byte}) is not UTF-8: save the file as UTF-8 (read another way, a password or a path in it would silently change)`, line);
  }
}

/** Where lenient decoding first put U+FFFD for bytes that do not spell it (EF BF BD): the first bad byte. */
function firstInvalidByte(bytes: Uint8Array): number {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  let offset = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 0xfffd && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
    offset += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return offset;
}

/** autopulse's config.json: JSON.parse's own line and column; then the walk, with lines found in the text. */
function parseJsonSettings(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) throw new ForeignConfigError(jsonErrorText(text, err.message));
    throw err;
  }
  checkTree(value, valueTree(text, 'json'));
  return value;
}
