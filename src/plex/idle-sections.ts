// Judges, at each poll of the Plex follower, the follow-ups whose sections went idle: a confirmed file ends at
// once; one still not in the library waits for its section's grace, since Plex may yet scan it in.
import { confirmBatch } from './confirm.js';
import { LOOKUPS_AT_ONCE, type Finished, type Followed, type PlexFollowerOptions } from './follow-state.js';
import { verdict } from './verdict.js';

interface SectionState {
  idleSince?: number;
  lastAddedAt: number;
}

export class IdleSections {
  private readonly sections = new Map<string, SectionState>();

  constructor(private readonly opts: PlexFollowerOptions) {}

  /** A scan of these sections was handed over to be followed: their grace starts again. */
  requested(sections: { id: string }[], now: number): void {
    for (const s of sections) {
      const state = this.sections.get(s.id) ?? { lastAddedAt: now };
      state.lastAddedAt = now;
      this.sections.set(s.id, state);
    }
  }

  /** What a poll saw running (`at`: when it began); sections no longer followed are forgotten. */
  seen(followed: Iterable<Followed>, running: Set<string>, at: number): void {
    const sectionsFollowed = new Set<string>();
    for (const f of followed) for (const s of f.ticket.sections) sectionsFollowed.add(s.id);
    for (const id of sectionsFollowed) {
      const state = this.sections.get(id)!;
      if (running.has(id)) state.idleSince = undefined;
      else state.idleSince ??= at;
    }
    for (const id of this.sections.keys()) if (!sectionsFollowed.has(id)) this.sections.delete(id);
  }

  /**
   * Items whose sections are idle: confirmed ones end now, the rest once their section's grace is over.
   * The recently added items are paged through only for files whose scans the socket did not watch.
   */
  async judge(judged: Followed[], now: number): Promise<Finished[]> {
    // A file already seen in the library (an earlier end's items) stays confirmed: a lookup that cannot tell must not undo it.
    const withFile = judged.filter((f) => f.ticket.file !== undefined && f.last?.state !== 'confirmed');
    await lookUp(this.opts, withFile, (f) => !this.watched(f));
    const out: Finished[] = [];
    for (const f of judged) {
      if (f.last?.state !== 'confirmed' && !this.graceOver(f, now)) continue;
      out.push({ followed: f, ...verdict({ file: f.ticket.file, waitedMs: now - f.item.deliveredAt, seenRunning: f.seenRunning, last: f.last }) });
    }
    return out;
  }

  /** The socket has been open since before this follow-up began, and its end was not found by the cross-check alone. */
  private watched(f: Followed): boolean {
    const since = this.opts.watch?.connectedSince;
    return since !== undefined && since <= f.followedAt && !f.unheard;
  }

  /** A section's grace runs from its latest scan request or from when it went idle, whichever is later. */
  private graceOver(f: Followed, now: number): boolean {
    return f.ticket.sections.every((s) => {
      const state = this.sections.get(s.id);
      if (!state || state.idleSince === undefined) return false;
      return now - Math.max(state.idleSince, state.lastAddedAt) >= this.opts.graceMs;
    });
  }
}

/** Asks the library about the files of these follow-ups (`listing`: page through the recently added items too). */
export async function lookUp(opts: PlexFollowerOptions, withFile: Followed[], listing: (f: Followed) => boolean): Promise<void> {
  const answers = await confirmBatch({
    api: opts.api,
    files: withFile.map((f) => ({ file: f.ticket.file!, sections: f.ticket.sections, listing: listing(f) })),
    fileInLibrary: opts.fileInLibrary,
    wantItem: opts.analyze && opts.after.analyze !== 'off',
    concurrency: LOOKUPS_AT_ONCE,
  });
  withFile.forEach((f, i) => (f.last = answers[i]));
}
