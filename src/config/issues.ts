// One-line explanations of what is wrong with a config value: "KEY: expected ..., got ...", secrets not shown.
import type * as z from 'zod/mini';
import { isObject, kindOf, type JsonObject } from './json-file.js';
import { keyPath } from './schema-walk.js';
import { isSecretKey } from './secrets.js';
import { keepStart } from '../text-cut.js';
import { shownUrl } from '../http/url-credentials.js';

/** The "expected ..." phrase for issues whose schema did not carry its own. */
export function genericExpected(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    const phrases: Record<string, string> = {
      string: 'a string',
      boolean: 'true or false',
      number: 'a number',
      int: 'a whole number',
      array: 'a list',
      object: 'an object',
      record: 'an object',
    };
    return phrases[issue.expected] ?? `a ${issue.expected}`;
  }
  if (issue.code === 'invalid_value') return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  return undefined;
}

export function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key' && issue.issues[0]) return issue.issues[0].message;
  return issue.message;
}

/** `fromFile`: the value was read from a file a _FILE variable names, and is never shown, secret or not. */
export function describeIssue(issue: z.core.$ZodIssue, input: JsonObject, omitPath: boolean, fromFile = false): string {
  const path = issue.path as (string | number)[];
  const found = issue.code === 'invalid_key' ? path[path.length - 1] : valueAt(input, path, issue.input);
  const where = omitPath ? '' : keyPath(path);
  const got = fromFile ? "the file's content (not shown)" : describeValue(found, isSecretKey(path));
  return `${where ? `${where}: ` : ''}expected ${expectedOf(issue)}, got ${got}`;
}

/** What the user wrote at `path` (before any transform), or the issue's own input when the path leads nowhere. */
function valueAt(root: unknown, path: (string | number)[], fallback: unknown): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (Array.isArray(v) && typeof p === 'number') v = v[p];
    else if (isObject(v) && typeof p === 'string') v = Object.hasOwn(v, p) ? v[p] : undefined;
    else return fallback;
  }
  return v;
}

function describeValue(value: unknown, secret: boolean): string {
  if (value === undefined) return 'nothing';
  if (secret && typeof value === 'string' && value !== '') return 'a string (not shown: it is a secret)';
  // A secret put in a list or an object by mistake is still the secret.
  if (secret && value !== null && typeof value === 'object') return `${kindOf(value)} (not shown: it is a secret)`;
  // A URL is shown as every URL is: without a user and password written into it.
  const json = shownUrl(JSON.stringify(value));
  if (json.length <= 60) return json;
  if (typeof value === 'string') return `${keepStart(json, 56)}..."`;
  return kindOf(value);
}
