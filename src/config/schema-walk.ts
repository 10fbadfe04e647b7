// Walks the config schema alongside the data: fills missing keys with their default, collects keys the schema
// does not know, names the keys known at one level, sorts known keys for writing, and spells a key's path.
import * as z from 'zod/mini';
import { isObject, type Json, type JsonObject } from './json-file.js';
import { configSchema } from './schema.js';

/** The object shape behind defaults and optionals, if the schema is an object at heart. */
export function objectShape(schema: z.ZodMiniType): Record<string, z.ZodMiniType> | undefined {
  const inner = unwrap(schema);
  return inner instanceof z.ZodMiniObject ? (inner.shape as Record<string, z.ZodMiniType>) : undefined;
}

function unwrap(schema: z.ZodMiniType): z.ZodMiniType {
  let s: z.ZodMiniType = schema;
  for (;;) {
    if (s instanceof z.ZodMiniDefault || s instanceof z.ZodMiniPrefault || s instanceof z.ZodMiniOptional) {
      s = s.def.innerType as z.ZodMiniType;
    } else {
      return s;
    }
  }
}

/**
 * Fills keys missing from fixed-shape objects (the top level, GOOGLE, GOOGLE.ALLOWED, RCLONE, ...) with the
 * base default, recording each as a dotted path. Mappings, lists and unknown keys are left exactly as written.
 */
export function addMissing(value: Json, base: Json, schema: z.ZodMiniType, path: string[], added: string[]): Json {
  const shape = objectShape(schema);
  if (!shape || !isObject(value) || !isObject(base)) return value;
  const out: JsonObject = { ...value };
  for (const [key, child] of Object.entries(shape)) {
    if (!Object.hasOwn(base, key)) continue; // optional without a default: nothing to add
    if (value[key] === undefined) {
      out[key] = base[key];
      added.push([...path, key].join('.'));
    } else {
      out[key] = addMissing(value[key], base[key], child, [...path, key], added);
    }
  }
  return out;
}

/** The keys the schema knows in the object at `parentPath` (e.g. "", "GOOGLE", "TARGETS[0]"). */
export function knownSiblings(parentPath: string): string[] {
  let schema: z.ZodMiniType = configSchema();
  for (const part of parentPath.split(/\.|(?=\[)/).filter(Boolean)) {
    const inner = unwrap(schema);
    if (part.startsWith('[')) {
      if (!(inner instanceof z.ZodMiniArray)) return [];
      schema = inner.def.element as z.ZodMiniType;
    } else {
      const shape = objectShape(inner);
      if (!shape || !Object.hasOwn(shape, part)) return [];
      schema = shape[part];
    }
  }
  return Object.keys(objectShape(schema) ?? {});
}

export function collectIgnored(value: unknown, schema: z.ZodMiniType, path: (string | number)[], ignored: string[]): void {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodMiniArray && Array.isArray(value)) {
    value.forEach((item, i) => collectIgnored(item, inner.def.element as z.ZodMiniType, [...path, i], ignored));
    return;
  }
  const shape = objectShape(inner);
  if (!shape || !isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(shape, key)) collectIgnored(value[key], shape[key], [...path, key], ignored);
    else ignored.push(keyPath([...path, key]));
  }
}

/** KEY.SUB[2]["/data/Mr. Robot/"]: config keys dotted, user-chosen keys (paths, priorities) quoted. */
export function keyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Z][A-Z0-9_]*$/.test(String(p))) out += (out ? '.' : '') + String(p);
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

/** Sorted keys like plex_autoscan's files; mappings, priorities and unknown keys keep the user's order. */
export function sortKnownObjects(value: Json, schema: z.ZodMiniType): Json {
  const shape = objectShape(schema);
  if (!shape || !isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) {
    out[key] = Object.hasOwn(shape, key) ? sortKnownObjects(value[key], shape[key]) : value[key];
  }
  return out;
}
