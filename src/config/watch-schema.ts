// The WATCH block: folders scanrelay watches itself (inotify, or polling for mounts where inotify sees nothing).
import * as z from 'zod';
import { pathMappings } from './values.js';

function isRegex(value: string): boolean {
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}

const regexList = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? [v] : v),
    z.array(
      z.string({ error: 'a regular expression' }).min(1, { error: 'a non-empty regular expression' }).refine(isRegex, { error: 'a valid regular expression' }),
      { error: 'a list of regular expressions' },
    ),
  );

const positive = (expected: string) => z.number({ error: expected }).gt(0, { error: expected });

export const WATCH_BACKENDS = ['inotify', 'poll'] as const;

/** One WATCH.PATHS entry's schema. */
export function watchPathSchema() {
  return z.object(
    {
      PATH: z.string({ error: 'an absolute folder path' }).regex(/^\//, { error: 'an absolute folder path' }),
      /** Regular expressions on the full path: when any is given, only matching paths count. */
      INCLUDE: regexList().default([]),
      EXCLUDE: regexList().default([]),
      RECURSIVE: z.boolean({ error: 'true or false' }).default(true),
      BACKEND: z
        .string({ error: 'one of "inotify", "poll"' })
        .transform((v) => v.toLowerCase())
        .pipe(z.enum(WATCH_BACKENDS, { error: 'one of "inotify", "poll"' }))
        .default('inotify'),
      /** Seconds between two walks of the tree (poll backend); unset = WATCH.POLL_INTERVAL. */
      POLL_INTERVAL: positive('a number of seconds greater than 0').optional(),
      /** Turns the watched path into the path a webhook would send; same shape as SERVER_PATH_MAPPINGS. */
      REWRITE: pathMappings().default({}),
    },
    { error: 'an object with at least PATH' },
  );
}

/** The WATCH block's schema, made for one reading of a config. */
export function watchSchema() {
  return z
    .object(
      {
        PATHS: z.array(watchPathSchema(), { error: 'a list of {"PATH": ...} objects' }).default([]),
        /** Seconds of quiet a folder needs before its change is queued. */
        DEBOUNCE: z.number({ error: 'a number of seconds, 0 or more' }).min(0, { error: 'a number of seconds, 0 or more' }).default(5),
        POLL_INTERVAL: positive('a number of seconds greater than 0').default(60),
      },
      { error: 'an object with PATHS, DEBOUNCE, POLL_INTERVAL' },
    )
    .prefault({});
}

export type WatchConfig = z.infer<ReturnType<typeof watchSchema>>;
export type WatchPathConfig = WatchConfig['PATHS'][number];
