// Refreshes of a library's own item (a new series; any movie without the plugin) are held per library, so a burst
// of such folders costs ONE library walk: each folder's scan answers when that one refresh is sent (or failed), so
// a failure is retried by the queue as usual. The refresh is sent once the burst had ROOT_HOLD_MS to gather and
// `ready()` says the way is clear (mediabrowser/scan.ts: no targeted refresh of ours still waiting in the server's
// queue, where a later library refresh would run before them).
import type { Clock } from '../../clock.js';
import type { FolderItem } from './locate.js';
import type { SentOutcome } from './sent.js';

/** How long a library-root refresh waits for the rest of a burst (arr imports of a burst arrive seconds apart). */
export const ROOT_HOLD_MS = 5_000;

interface Held {
  item: FolderItem;
  library: string;
  folders: string[];
  answer: ((outcome: SentOutcome) => void)[];
}

export interface RootHoldOptions {
  clock: Clock;
  holdMs?: number;
  /** Resolves when the refresh may go (at once when nothing is in the way). */
  ready(): Promise<void>;
  /** Sends the library item's refresh and says what came of it, for every folder held. */
  send(item: FolderItem, library: string, folders: string[]): Promise<SentOutcome>;
}

export class RootHold {
  private readonly held = new Map<string, Held>();

  constructor(private readonly opts: RootHoldOptions) {}

  /** `item`: the library's own item; all folders held for one item answer together. */
  hold(item: FolderItem, library: string, folder: string): Promise<SentOutcome> {
    let held = this.held.get(item.id);
    if (!held) {
      held = { item, library, folders: [], answer: [] };
      this.held.set(item.id, held);
      void this.opts.clock
        .sleep(this.opts.holdMs ?? ROOT_HOLD_MS)
        .then(() => this.opts.ready())
        .then(() => this.release(item.id));
    }
    if (!held.folders.includes(folder)) held.folders.push(folder);
    return new Promise((resolve) => held.answer.push(resolve));
  }

  private async release(key: string): Promise<void> {
    const held = this.held.get(key);
    if (!held) return;
    this.held.delete(key);
    const outcome = await this.opts.send(held.item, held.library, held.folders);
    for (const answer of held.answer) answer(outcome);
  }
}
