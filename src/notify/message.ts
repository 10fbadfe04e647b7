// One notification, whatever carries it: what happened, to which server or folder, in one sentence for a person.
import type { NotifyEvent } from './schema.js';

/**
 * A sentence of scanrelay's own words around values from outside (a folder or release name, a server's name or
 * error text), kept apart so a carrier that renders markup escapes the values and never its own words.
 */
export class Sentence {
  constructor(
    private readonly words: readonly string[],
    private readonly values: readonly unknown[],
  ) {}

  /** The sentence with each value passed through `escape` (plain: as it is). */
  render(escape: (value: string) => string = (v) => v): string {
    return this.words.reduce((out, word, i) => out + escape(String(this.values[i - 1])) + word);
  }

  toString(): string {
    return this.render();
  }
}

/** `said\`${folder}: ${outcome}\``: a Sentence whose interpolated values are the parts from outside. */
export const said = (words: TemplateStringsArray, ...values: unknown[]): Sentence => new Sentence(words, values);

export interface Message {
  event: NotifyEvent | 'test';
  /** The media server it is about, if any. */
  target?: string;
  /** One sentence for a person. Built from names and paths only: never a token, the secret or a webhook URL. */
  message: Sentence;
  /** When it happened (ms since the epoch). */
  at: number;
  /** The event's own fields (folder, outcome, detail, counts): the values are from outside, the keys are ours. */
  fields?: Record<string, string | number>;
}

/** A short title for the carriers that have one. */
export function titleOf(m: Message): Sentence {
  const server = m.target ?? 'a media server';
  const titles: Record<Message['event'], Sentence> = {
    'target-down': said`scanrelay: ${server} is down`,
    'target-up': said`scanrelay: ${server} is back`,
    'scan-failed': said`scanrelay: a scan gave up`,
    'not-found': said`scanrelay: a file was not found`,
    unmatched: said`scanrelay: a path is in no library`,
    'daily-summary': said`scanrelay: the day in scans`,
    test: said`scanrelay: test notification`,
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
