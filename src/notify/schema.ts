// The NOTIFY block: who is told when a media server stays down, comes back, or a scan gives up.
import * as z from 'zod/mini';

export const NOTIFY_TYPES = ['json', 'discord', 'ntfy', 'gotify', 'apprise'] as const;
export const NOTIFY_EVENTS = ['target-down', 'target-up', 'scan-failed', 'not-found', 'unmatched', 'daily-summary'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const nameExpected = 'a name made of letters, digits, "_", "." or "-"';

/** One NOTIFY entry's schema. */
export function notifierSchema() {
  return z.object(
    {
      NAME: z.string({ error: nameExpected }).check(z.regex(/^[A-Za-z0-9_.-]+$/, { error: nameExpected })),
      TYPE: z.enum(NOTIFY_TYPES, { error: `one of ${NOTIFY_TYPES.map((t) => `"${t}"`).join(', ')}` }),
      /** Where to post: the webhook, topic or Apprise API URL; it may carry a token, so it is a secret. */
      URL: z.string({ error: 'an http(s) URL' }).check(z.refine((v) => /^https?:\/\/[^\s]+$/i.test(v), { error: 'an http(s) URL' })),
      EVENTS: z._default(z.array(z.enum(NOTIFY_EVENTS, { error: `one of ${NOTIFY_EVENTS.join(', ')}` }), { error: 'a list of event names' }), ['target-down', 'target-up', 'scan-failed']),
      /** A target down this long (seconds) is told once, and its return once. */
      DOWN_AFTER: z._default(z.number({ error: 'seconds, 0 or more' }).check(z.gte(0, { error: 'seconds, 0 or more' })), 300),
    },
    { error: 'an object with NAME, TYPE and URL' },
  );
}

/** The NOTIFY block's schema, made for one reading of a config. */
export function notifySchema() {
  return z._default(
    z.array(notifierSchema(), { error: 'a list of {"NAME", "TYPE", "URL"} objects' }).check(z.superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((n, i) => {
        if (seen.has(n.NAME.toLowerCase())) ctx.addIssue({ code: 'custom', path: [i, 'NAME'], message: 'a name not used twice' });
        seen.add(n.NAME.toLowerCase());
      });
    })),
    [],
  );
}

export type NotifierConfig = z.infer<ReturnType<typeof notifierSchema>>;
