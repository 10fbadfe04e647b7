// config.json as text: parsed into a JSON object, with the line and column of a syntax error, and a key written
// twice at the top level refused with the line of each.
import { ConfigError } from './error.js';
import { topLevelKeyLines } from './file-positions.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseJson(text: string, where: string): JsonObject {
  // Windows editors like to start files with a byte-order mark, which JSON.parse refuses.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') {
    throw new ConfigError(`${where}: the file is empty; fill it with a JSON object, or delete it to get a default one`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new ConfigError(`${where}: ${jsonErrorText(body, (err as Error).message)}`);
  }
  if (!isObject(value)) {
    throw new ConfigError(`${where}: expected a JSON object ({ ... }) at the top level, got ${kindOf(value)}`);
  }
  // JSON.parse keeps the last of two keys of one name: a second SERVER_PATH_MAPPINGS pasted below the first would
  // drop every entry of the first without a word.
  const twice = [...topLevelKeyLines(body)].find(([, lines]) => lines.length > 1);
  if (twice) {
    const [key, lines] = twice;
    throw new ConfigError(
      `${where}: '${key}' is written ${lines.length} times (lines ${lines.join(', ')}) and only the last would count: merge their entries into one '${key}', delete the others, and start again (the file was not changed)`,
    );
  }
  return value;
}

/** "invalid JSON at line L, column C: <reason>", from the position in Node's parser message. */
export function jsonErrorText(text: string, message: string): string {
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  const reason = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*(?:in JSON )?at position \d+/, '')
    .trim();
  let line: number | undefined;
  let column: number | undefined;
  if (lineColumn) {
    line = Number(lineColumn[1]);
    column = Number(lineColumn[2]);
  } else {
    const at = position ? Number(position[1]) : /end of JSON input/.test(message) ? text.length : undefined;
    if (at !== undefined) {
      const before = text.slice(0, at);
      line = before.split('\n').length;
      column = at - (before.lastIndexOf('\n') + 1) + 1;
    }
  }
  return line === undefined ? `invalid JSON: ${reason}` : `invalid JSON at line ${line}, column ${column}: ${reason}`;
}

export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return JSON.stringify(value);
}
