// The ARR block: the Sonarr, Radarr, Lidarr, Readarr and Whisparr instances scanrelay reads the history of, to
// catch up on the imports whose webhook found it down (src/arr/), and that `scanrelay connect` sets up. The schema
// lives here, not in src/arr/, so an idle relay without ARR entries loads nothing of src/arr/.
import * as z from 'zod/mini';
import { choice, httpUrl, positiveSeconds, withDefault } from '../value-rules.js';

/** The apps whose history scanrelay reads (src/arr/apps.ts has what each one calls and records). */
export const ARR_TYPES = ['sonarr', 'radarr', 'lidarr', 'readarr', 'whisparr'] as const;
export type ArrType = (typeof ARR_TYPES)[number];

const nameExpected = 'a name made of letters, digits, "_", "." or "-"';
const hoursExpected = 'a number of hours, 0 (never) or more';
const keyExpected = "the app's API key (Settings > General > Security > API Key)";

/** One ARR entry's schema. */
export function arrEntrySchema() {
  return z.object(
    {
      NAME: z.string({ error: nameExpected }).check(z.regex(/^[A-Za-z0-9_.-]+$/, { error: nameExpected })),
      TYPE: choice(ARR_TYPES),
      /** The app's address as scanrelay reaches it (http://sonarr:8989), with its URL base if it has one. */
      URL: httpUrl(),
      API_KEY: z.string({ error: keyExpected }).check(z.minLength(1, { error: keyExpected })),
      /** Seconds between two readings of the app's history while it answers. */
      CATCH_UP_INTERVAL: withDefault(positiveSeconds(), 300),
      /** Hours between two audits of the app's files against the media servers (src/reconcile/); 0: never. */
      RECONCILE_INTERVAL: withDefault(z.number({ error: hoursExpected }).check(z.gte(0, { error: hoursExpected })), 24),
    },
    { error: 'an object with NAME, TYPE, URL and API_KEY' },
  );
}

/** The ARR block's schema, made for one reading of a config. */
export function arrSchema() {
  return withDefault(
    z.array(arrEntrySchema(), { error: 'a list of {"NAME", "TYPE", "URL", "API_KEY"} objects' }).check(
      z.superRefine((list, ctx) => {
        const seen = new Map<string, number>();
        list.forEach((a, i) => {
          const first = seen.get(a.NAME.toLowerCase());
          if (first !== undefined) ctx.addIssue({ code: 'custom', path: [i, 'NAME'], message: `a name not already used by ARR[${first}]` });
          else seen.set(a.NAME.toLowerCase(), i);
        });
      }),
    ),
    [],
  );
}

export type ArrEntry = z.infer<ReturnType<typeof arrEntrySchema>>;
