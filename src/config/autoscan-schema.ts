// The AUTOSCAN block: autoscan-compatible routes under /triggers/, behind their own HTTP Basic auth.
import * as z from 'zod/mini';
import { choice, pathMappings, prefault, withDefault } from '../value-rules.js';

/** Routes of their own under /triggers/: no TRIGGERS entry may take these names. */
const RESERVED_TRIGGER_NAMES = ['manual', 'a-train', 'bazarr', 'tdarr'];

export const AUTOSCAN_TRIGGER_TYPES = ['sonarr', 'radarr', 'lidarr', 'readarr'] as const;
const nameExpected = 'a route name made of letters, digits, "_", "." or "-"';

function triggerSchema() {
  return z.object(
    {
      /** The route: POST /triggers/<NAME>. */
      NAME: z.string({ error: nameExpected }).check(z.regex(/^[A-Za-z0-9_.-]+$/, { error: nameExpected })),
      TYPE: choice(AUTOSCAN_TRIGGER_TYPES),
      /** autoscan's rewrites: prefix mappings, or its regex rules ({"FROM", "TO"}), as every mapping takes them. */
      REWRITE: withDefault(pathMappings(), {}),
    },
    { error: 'an object with NAME and TYPE' },
  );
}

/** The AUTOSCAN block's schema, made for one reading of a config. */
export function autoscanSchema() {
  return prefault(
    z.object(
      {
        ENABLED: withDefault(z.boolean({ error: 'true or false' }), false),
        USER: withDefault(z.string({ error: 'a string' }), ''),
        PASSWORD: withDefault(z.string({ error: 'a string' }), ''),
        /** Empty = one route per app, named after it: /triggers/sonarr, /triggers/radarr, ... */
        TRIGGERS: withDefault(z.array(triggerSchema(), { error: 'a list of {"NAME", "TYPE"} objects' }), []),
        MANUAL_REWRITE: withDefault(pathMappings(), {}),
        A_TRAIN_REWRITE: withDefault(pathMappings(), {}),
        /** Per Shared Drive id: tried before A_TRAIN_REWRITE. */
        A_TRAIN_DRIVES: withDefault(z.record(z.string(), pathMappings(), { error: 'an object of "<drive id>": {"path": ["prefix"]}' }), {}),
      },
      { error: 'an object with ENABLED, USER, PASSWORD, TRIGGERS' },
    ).check(z.superRefine((a, ctx) => {
      if (!a.ENABLED) return;
      for (const key of ['USER', 'PASSWORD'] as const) {
        if (a[key] === '') {
          ctx.addIssue({ code: 'custom', path: [key], message: `a non-empty ${key.toLowerCase()}: the /triggers/ routes are never served without Basic auth` });
        }
      }
      if (a.USER.includes(':')) ctx.addIssue({ code: 'custom', path: ['USER'], message: 'a user name without ":" (Basic auth splits on it)' });
      const seen = new Set<string>();
      a.TRIGGERS.forEach((t, i) => {
        const key = t.NAME.toLowerCase();
        if (seen.has(key) || RESERVED_TRIGGER_NAMES.includes(key)) {
          ctx.addIssue({ code: 'custom', path: ['TRIGGERS', i, 'NAME'], message: `a route name not used twice, and not ${RESERVED_TRIGGER_NAMES.map((n) => `"${n}"`).join(', ')}` });
        }
        seen.add(key);
      });
    })),
    {},
  );
}

export type AutoscanConfig = z.infer<ReturnType<typeof autoscanSchema>>;

