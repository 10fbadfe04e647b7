// The one path gate every requested path passes before it is mapped or queued: a path must be a clean,
// absolute name on some machine, and `..` may not climb out of the prefix it matched (docs/security.md).
import { separatorOf } from './folder.js';
import type { ScanRequest } from '../request.js';
import { keepStart, LONE_SURROGATE } from '../text-cut.js';
import { codePointName, invisibleIn, INVISIBLE_ALL } from './invisible.js';
import { mappingCandidates, startsAtBoundary, type MappingMatch, type PathMappings } from './mapping.js';

/** Longest path accepted, in UTF-8 bytes (Linux's PATH_MAX). */
export const MAX_PATH_BYTES = 4096;

export type GateRule = 'too-long' | 'control-character' | 'invalid-unicode' | 'invisible-character' | 'not-absolute' | 'unc-unmapped' | 'dot-name' | 'escapes-prefix';

export type GateVerdict =
  | { ok: true; path: string; match?: MappingMatch }
  | { ok: false; rule: GateRule; reason: string };

const RULE_TEXT: Record<GateRule, string> = {
  'too-long': `is longer than ${MAX_PATH_BYTES} bytes`,
  'control-character': 'contains a NUL or control character, which no media file name holds',
  'invalid-unicode': 'is not valid Unicode (it holds a lone surrogate)',
  'invisible-character': 'holds an invisible character (a format character such as a right-to-left override or a zero-width space, or a line separator), which can make one path look like another',
  'not-absolute': 'is not absolute: send a path starting with "/" or a drive like "D:\\", or map its form in SERVER_PATH_MAPPINGS',
  'unc-unmapped': 'is a UNC path (\\\\server\\share) that no SERVER_PATH_MAPPINGS entry names',
  'dot-name': 'has a name made only of dots and spaces (like "..." or ".. "), which Windows may read as ".."',
  'escapes-prefix': 'climbs with ".." out of the prefix it starts with (or names a file that is that prefix itself)',
};

// C0 controls, DEL and the C1 controls; lone surrogates cannot be URL-encoded for a media server.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const DRIVE = /^[A-Za-z]:[\\/]/;
const UNC = /^(?:\\\\|\/\/)/;
const SEPARATOR = /[\\/]/;

/**
 * Checks `path` as sent (before SERVER_PATH_MAPPINGS) and returns it with its "." and ".." segments resolved,
 * or the rule it breaks. A path that a mapping form starts is held inside that form; any other must be an
 * absolute POSIX or Windows drive path and is held inside its root. Both "/" and "\\" count as separators
 * here, because a Windows media server reads "\\" as one whatever form the path arrived in.
 */
export function gatePath(path: string, mappings: PathMappings, opts: { file?: boolean } = {}): GateVerdict {
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) return refuse('too-long');
  const control = CONTROL.exec(path)?.[0];
  if (control !== undefined) return refuse('control-character', control);
  if (LONE_SURROGATE.test(path)) return refuse('invalid-unicode');
  const invisible = invisibleIn(path);
  if (invisible !== undefined) return refuse('invisible-character', invisible);

  const match = mappingCandidates(mappings).find((c) => startsAtBoundary(path, c.from));
  let prefix: string;
  if (match) prefix = path.slice(0, Math.min(match.from.length, path.length));
  else if (UNC.test(path)) return refuse('unc-unmapped');
  else if (DRIVE.test(path)) prefix = path.slice(0, 3);
  else if (path.startsWith('/')) prefix = '/';
  else return refuse('not-absolute');

  const rest = path.slice(prefix.length);
  const parts = rest.split(SEPARATOR);
  if (parts.some((p) => p !== '.' && p !== '..' && /^[. ]+$/.test(p))) return refuse('dot-name');
  // A file must be named inside its prefix: the folder scanned for it (its parent) would otherwise lie above it.
  const named = (kept: string[]) => !(opts.file && match && kept.length === 0);
  // Already clean (no dot segment, no doubled separator): kept exactly as sent.
  if (!parts.some((p) => p === '.' || p === '..') && !/[\\/]{2}/.test(rest)) {
    if (!named(parts.filter((p) => p !== ''))) return refuse('escapes-prefix');
    return { ok: true, path, ...(match ? { match } : {}) };
  }
  const kept: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part !== '..') kept.push(part);
    else if (kept.pop() === undefined) return refuse('escapes-prefix');
  }
  if (!named(kept)) return refuse('escapes-prefix');
  const sep = rest.match(SEPARATOR)?.[0] ?? separatorOf(prefix);
  const glue = kept.length === 0 || SEPARATOR.test(prefix.slice(-1)) ? '' : sep;
  const trail = kept.length > 0 && SEPARATOR.test(rest.slice(-1)) ? sep : '';
  return { ok: true, path: prefix + glue + kept.join(sep) + trail, ...(match ? { match } : {}) };
}

/** One line for the answer and the log: the rule's name, what it means, and the start of the path. */
export function describeRefusal(path: string, verdict: { rule: GateRule; reason: string }): string {
  return `refused path '${preview(path)}' (${verdict.rule}): it ${verdict.reason}`;
}

/**
 * At most 120 characters of a path, with controls and invisible characters shown as escapes: a refused path is
 * never echoed whole, and never reorders or hides part of the line that shows it.
 */
export function preview(path: string): string {
  const shown = path.length > 120 ? `${keepStart(path, 120)}… (${Buffer.byteLength(path, 'utf8')} bytes)` : path;
  const escape = (c: string) => {
    const cp = c.codePointAt(0) ?? 0;
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  };
  return shown
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, escape)
    .replace(new RegExp(LONE_SURROGATE.source, 'g'), escape)
    .replace(INVISIBLE_ALL, escape);
}

/** A refusal; `character` (a control or invisible one) is named by its code point, as the sender cannot see it. */
function refuse(rule: GateRule, character?: string): GateVerdict {
  return { ok: false, rule, reason: character === undefined ? RULE_TEXT[rule] : `${RULE_TEXT[rule]}: ${codePointName(character)}` };
}

export interface Refusal {
  /** The request as sent (its path may be megabytes long: show it through preview()). */
  request: ScanRequest;
  rule: GateRule;
  /** The line for the answer and the log. */
  message: string;
}

/** A request named a path the gate refuses; nothing of that request was queued. */
export class PathRefused extends Error {
  constructor(readonly refusals: Refusal[]) {
    super(refusals.length === 1 ? refusals[0].message : `${refusals[0].message} (and ${refusals.length - 1} more refused path(s))`);
  }

  get rule(): GateRule {
    return this.refusals[0].rule;
  }
}

/** Each request through the gate: the ones that pass (with resolved paths) and the ones refused. */
export function gateRequests(requests: ScanRequest[], mappings: PathMappings): { passed: ScanRequest[]; refused: Refusal[] } {
  const passed: ScanRequest[] = [];
  const refused: Refusal[] = [];
  for (const request of requests) {
    // Judged in NFC, as the mapping forms are; a path that needs no change keeps the spelling it was sent in.
    const nfc = typeof request.path === 'string' ? request.path.normalize('NFC') : undefined;
    const verdict = nfc !== undefined ? gatePath(nfc, mappings, { file: request.kind === 'file' }) : refuse('not-absolute');
    if (verdict.ok) passed.push(verdict.path === nfc ? request : { ...request, path: verdict.path });
    else refused.push({ request, rule: verdict.rule, message: describeRefusal(String(request.path), verdict) });
  }
  return { passed, refused };
}
