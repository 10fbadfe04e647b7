// The WATCH block: folders scanrelay watches itself (inotify, or polling for mounts where inotify sees nothing).
import * as z from 'zod/mini';
import { choice, oneOrList, optional, pathMappings, prefault, withDefault } from '../value-rules.js';

function isRegex(value: string): boolean {
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}

const regexList = () =>
  oneOrList(
    z.array(
      z.string({ error: 'a regular expression' }).check(z.minLength(1, { error: 'a non-empty regular expression' }), z.refine(isRegex, { error: 'a valid regular expression' })),
      { error: 'a list of regular expressions' },
    ),
  );

const positive = (expected: string) => z.number({ error: expected }).check(z.gt(0, { error: expected }));

export const WATCH_BACKENDS = ['inotify', 'poll'] as const;

/** One WATCH.PATHS entry's schema. */
export function watchPathSchema() {
  return z.object(
    {
      PATH: z.string({ error: 'an absolute folder path' }).check(z.regex(/^\//, { error: 'an absolute folder path' })),
      /** Regular expressions on the full path: when any is given, only matching paths count. */
      INCLUDE: withDefault(regexList(), []),
      EXCLUDE: withDefault(regexList(), []),
      RECURSIVE: withDefault(z.boolean({ error: 'true or false' }), true),
      BACKEND: withDefault(choice(WATCH_BACKENDS), 'inotify'),
      /** Seconds between two walks of the tree (poll backend); unset = WATCH.POLL_INTERVAL. */
      POLL_INTERVAL: optional(positive('a number of seconds greater than 0')),
      /** Turns the watched path into the path a webhook would send; same shape as SERVER_PATH_MAPPINGS. */
      REWRITE: withDefault(pathMappings(), {}),
    },
    { error: 'an object with at least PATH' },
  );
}

/** The WATCH block's schema, made for one reading of a config. */
export function watchSchema() {
  return prefault(
    z.object(
      {
        PATHS: withDefault(z.array(watchPathSchema(), { error: 'a list of {"PATH": ...} objects' }), []),
        /** Seconds of quiet a folder needs before its change is queued. */
        DEBOUNCE: withDefault(z.number({ error: 'a number of seconds, 0 or more' }).check(z.gte(0, { error: 'a number of seconds, 0 or more' })), 5),
        POLL_INTERVAL: withDefault(positive('a number of seconds greater than 0'), 60),
      },
      { error: 'an object with PATHS, DEBOUNCE, POLL_INTERVAL' },
    ),
    {},
  );
}

export type WatchConfig = z.infer<ReturnType<typeof watchSchema>>;
export type WatchPathConfig = WatchConfig['PATHS'][number];
