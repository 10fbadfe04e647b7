// One notification, whatever carries it: what happened, to which server or folder, in one sentence for a person.
import type { NotifyEvent } from './schema.js';

export interface Message {
  event: NotifyEvent | 'test';
  /** The media server it is about, if any. */
  target?: string;
  /** One sentence for a person. Built from names and paths only: never a token, the secret or a webhook URL. */
  message: string;
  /** When it happened (ms since the epoch). */
  at: number;
  /** The event's own fields (folder, outcome, detail, counts). */
  fields?: Record<string, string | number>;
}

/** A short title for the carriers that have one. */
export function titleOf(m: Message): string {
  const titles: Record<Message['event'], string> = {
    'target-down': `scanrelay: ${m.target ?? 'a media server'} is down`,
    'target-up': `scanrelay: ${m.target ?? 'a media server'} is back`,
    'scan-failed': 'scanrelay: a scan gave up',
    'not-found': 'scanrelay: a file was not found',
    unmatched: 'scanrelay: a path is in no library',
    'daily-summary': 'scanrelay: the day in scans',
    test: 'scanrelay: test notification',
  };
  return titles[m.event];
}

/** Bad news or good, for carriers with a level (ntfy priority, Apprise type). */
export function severityOf(m: Message): 'failure' | 'warning' | 'success' | 'info' {
  if (m.event === 'target-down' || m.event === 'scan-failed') return 'failure';
  if (m.event === 'not-found' || m.event === 'unmatched') return 'warning';
  if (m.event === 'target-up') return 'success';
  return 'info';
}
