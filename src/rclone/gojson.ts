// JSON text as Go's encoding/json writes it, so blobs and tokens we produce are byte-identical to
// rclone's: compact, with <, >, &, U+2028 and U+2029 escaped as \u sequences.

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
  '\b': '\\u0008',
  '\f': '\\u000c',
};

export function goJson(value: unknown, indent?: number): string {
  // Control characters are already escaped by JSON.stringify; \b and \f are rewritten in the long
  // form Go 1.19 uses. Escaped backslashes ("\\b") are left alone by matching pairs first.
  return JSON.stringify(value, null, indent).replace(/\\\\|\\b|\\f|[<>&\u2028\u2029]/g, (m) =>
    m === '\\\\' ? m : m === '\\b' ? GO_ESCAPES['\b'] : m === '\\f' ? GO_ESCAPES['\f'] : GO_ESCAPES[m],
  );
}

/** Go's JSON of a string map with its keys sorted (Go sorts map keys when encoding). */
export function goJsonSortedMap(map: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(map).sort()) sorted[key] = map[key];
  return goJson(sorted);
}
