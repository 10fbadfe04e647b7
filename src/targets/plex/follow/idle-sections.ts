// When each followed section went idle, as the polls saw it, and its latest request: a file not yet in the
// library is judged only once its sections have been idle for the grace since both, since Plex may still scan
// it in or write what it found (follow-up.ts's `nextStep` asks `graceOver`).
import type { FollowUp } from './follow-up.js';
import type { PlexFollowerOptions } from './follow-state.js';

interface SectionState {
  idleSince?: number;
  lastAddedAt: number;
}

export class IdleSections {
  private readonly sections = new Map<string, SectionState>();

  constructor(private readonly opts: Pick<PlexFollowerOptions, 'graceMs'>) {}

  /** A scan of these sections was handed over to be followed: their grace starts again. */
  requested(sections: { id: string }[], now: number): void {
    for (const s of sections) {
      const state = this.sections.get(s.id) ?? { lastAddedAt: now };
      state.lastAddedAt = now;
      this.sections.set(s.id, state);
    }
  }

  /** What a poll saw running (`at`: when it began); sections no longer followed are forgotten. */
  seen(followed: Iterable<FollowUp>, running: Set<string>, at: number): void {
    const sectionsFollowed = new Set<string>();
    for (const f of followed) for (const s of f.ticket.sections) sectionsFollowed.add(s.id);
    for (const id of sectionsFollowed) {
      const state = this.sections.get(id);
      if (!state) continue;
      if (running.has(id)) state.idleSince = undefined;
      else state.idleSince ??= at;
    }
    for (const id of this.sections.keys()) if (!sectionsFollowed.has(id)) this.sections.delete(id);
  }

  /** Its sections have been idle for the grace, counted from their latest request or from going idle, whichever is later. */
  graceOver(f: FollowUp, now: number): boolean {
    return f.ticket.sections.every((s) => {
      const state = this.sections.get(s.id);
      if (!state || state.idleSince === undefined) return false;
      return now - Math.max(state.idleSince, state.lastAddedAt) >= this.opts.graceMs;
    });
  }
}
