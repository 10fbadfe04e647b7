// Hostile config files the import tests share ("Closed by default, round two").

/**
 * A 1 KB YAML alias bomb ("billion laughs"): nine levels, each naming the one above ten times, so the last stands
 * for 10^9 copies of ten strings. 90 aliases in all: under the count of aliases written, it is what they expand to
 * that stops it, at the first alias of an alias (line 3).
 */
export const aliasBomb = [
  `l0: &l0 [${Array(10).fill(`"${'lol'.repeat(16)}"`).join(',')}]`,
  ...Array.from({ length: 9 }, (_, i) => `l${i + 1}: &l${i + 1} [${Array(10).fill(`*l${i}`).join(',')}]`),
].join('\n');
