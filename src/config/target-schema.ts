// One TARGETS entry: a media server or other receiver beside the first Plex. The keys every entry has are the
// table's (src/targets/kind.ts); each kind adds its own (src/targets/kinds.ts), so a new kind needs nothing here.
import * as z from 'zod/mini';
import { commonKeys } from '../targets/kind.js';
import { TARGET_TYPES, targetKinds } from '../targets/kinds.js';
import { FIRST_PLEX_NAME } from '../targets/plex/context.js';
import { requiredTargetKeys } from './target-keys.js';
import { choice } from '../value-rules.js';

export { TARGET_TYPES, FIRST_PLEX_NAME };

const TARGET_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

const targetNameExpected = 'a name made of letters, digits, "_", "." or "-"';

type Kinds = typeof targetKinds;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Every kind's own keys in one object (a key two kinds read is declared alike by both). */
type KindKeys = UnionToIntersection<ReturnType<Kinds[keyof Kinds]['keys']>>;

/** A TARGETS entry's schema, made for one reading of a config. */
export function targetSchema() {
  const kindKeys = Object.assign({}, ...Object.values(targetKinds).map((k) => k.keys())) as KindKeys;
  return z
    .object(
      {
        NAME: z.string({ error: targetNameExpected }).check(z.regex(TARGET_NAME_PATTERN, { error: targetNameExpected })),
        TYPE: choice(TARGET_TYPES),
        ...commonKeys(),
        ...kindKeys,
      },
      { error: 'an object with at least NAME and TYPE' },
    )
    .check(z.superRefine(requiredTargetKeys));
}
