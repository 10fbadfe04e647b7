// autopulse's config.toml, read with smol-toml under the import's limits (foreign-limits.ts): its own errors keep
// their line; keys it keeps as plain keys (`__proto__`, `constructor`, `prototype`) and depth built from dotted
// keys and [table] headers, which it reads without limit, are refused by the walk.
import { parse, TomlError } from 'smol-toml';
import { valueTree } from './file-positions.js';
import { checkTree, ForeignConfigError, MAX_DEPTH } from './foreign-limits.js';

export function parseToml(text: string): Record<string, unknown> {
  let value: Record<string, unknown>;
  try {
    // Objects without a prototype, `__proto__` kept as an own key: the walk then names it and its line.
    value = parse(text, { maxDepth: MAX_DEPTH, unsafeKeyBehaviour: 'keep' });
  } catch (err) {
    if (err instanceof TomlError) throw new ForeignConfigError(tomlReason(err), err.line);
    throw err;
  }
  checkTree(value, valueTree(text, 'toml'));
  return value;
}

/** smol-toml's first line without its "Invalid TOML document: " (the code block after it repeats the file). */
function tomlReason(err: TomlError): string {
  const reason = err.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
  if (/excessively nested/.test(reason)) return `arrays or inline tables nested more than ${MAX_DEPTH} levels deep`;
  return reason + (HINTS.find(([pattern]) => pattern.test(reason))?.[1] ?? '');
}

/** What autopulse users most often trip on, said after smol-toml's own words. */
const HINTS: [RegExp, string][] = [
  [/escape/, " (write \\\\ for a backslash, or a 'literal string' for a regular expression)"],
  [/^invalid value$/, ' (strings need quotes)'],
];
