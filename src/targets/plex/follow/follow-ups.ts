// The shared record of one Plex follower: every follow-up still followed, by delivery. It alone writes their
// state (through follow-up.ts's `apply`), so what a follow-up knows changes in one place whichever entry point
// learnt it, and a follow-up judged by one entry point is no longer there for the others.
import type { FollowItem } from '../../../scan.js';
import { apply, type FollowEvent, type FollowUp } from './follow-up.js';
import type { PlexTicket } from './follow-state.js';

export const keyOf = (item: FollowItem): string => `${item.ref.folderId}:${item.ref.generation}`;

/** A scan of ours Plex may still hold with no follow-up left to end (judged before its end was seen, or superseded). */
export interface Unfollowed {
  ticket: PlexTicket;
  /** When Plex took it. */
  at: number;
}

/** Scans remembered that way, at most (the oldest forgotten first): an end of theirs must not end a later follow-up. */
const UNFOLLOWED_KEPT = 256;

export class FollowUps {
  private readonly byKey = new Map<string, FollowUp>();
  /**
   * How many follow-ups wait on each section: the notification socket keeps the timeline entries of those
   * sections only (scan-watch.ts), and asks for every entry Plex sends, so the answer is a lookup.
   */
  private readonly perSection = new Map<string, number>();

  get size(): number {
    return this.byKey.size;
  }

  values(): FollowUp[] {
    return [...this.byKey.values()];
  }

  /** Scans of ours Plex holds whose end is not known: what PLEX_MAX_OUTSTANDING counts. */
  outstanding(): number {
    let n = 0;
    for (const f of this.byKey.values()) if (!f.ended) n++;
    return n;
  }

  add(item: FollowItem, ticket: PlexTicket, at: { now: number; poll: number }, place?: Record<string, number>): FollowUp {
    const f: FollowUp = { key: keyOf(item), item, ticket, followedAt: at.now, addedAtPoll: at.poll, seenRunning: false, ...(place ? { place } : {}) };
    const before = this.byKey.get(f.key);
    if (before) this.forget(before);
    this.byKey.set(f.key, f);
    for (const s of ticket.sections) this.perSection.set(s.id, (this.perSection.get(s.id) ?? 0) + 1);
    return f;
  }

  /** A follow-up waits on this section. */
  follows(sectionId: string): boolean {
    return this.perSection.has(sectionId);
  }

  /** Still followed: not judged meanwhile by another entry point. */
  holds(f: FollowUp): boolean {
    return this.byKey.get(f.key) === f;
  }

  /** Those with a scan in this section. */
  inSection(sectionId: string): FollowUp[] {
    return this.values().filter((f) => f.ticket.sections.some((s) => s.id === sectionId));
  }

  /** Told each time a follow-up's scan is seen ended: its place at Plex is free, whatever judging is left. */
  onEnded?: () => void;

  tell(f: FollowUp | Iterable<FollowUp>, e: FollowEvent): void {
    let ended = false;
    for (const one of isFollowUp(f) ? [f] : f) {
      if (!this.holds(one)) continue;
      const before = one.ended;
      apply(one, e);
      if (!before && one.ended) ended = true;
    }
    if (ended) this.onEnded?.();
  }

  /** Judged: no longer followed. False when another entry point judged it first. */
  take(f: FollowUp): boolean {
    if (!this.holds(f)) return false;
    this.forget(f);
    if (!f.ended) this.unfollowedScan({ ticket: f.ticket, at: f.ticket.accepted?.at ?? f.item.deliveredAt });
    return true;
  }

  /** Scans Plex may still hold that no follow-up waits for: the end of one is no follow-up's. */
  readonly unfollowed: Unfollowed[] = [];

  unfollowedScan(u: Unfollowed): void {
    this.unfollowed.push(u);
    if (this.unfollowed.length > UNFOLLOWED_KEPT) this.unfollowed.shift();
  }

  private forget(f: FollowUp): void {
    this.byKey.delete(f.key);
    for (const s of f.ticket.sections) {
      const n = (this.perSection.get(s.id) ?? 1) - 1;
      if (n > 0) this.perSection.set(s.id, n);
      else this.perSection.delete(s.id);
    }
  }
}

const isFollowUp = (f: FollowUp | Iterable<FollowUp>): f is FollowUp => 'key' in f;
