// What one poll of the Plex follower learns of Plex: which sections are scanning (the socket's events while they
// can be trusted, else GET /activities), and the cross-check that cannot stall: a follow-up whose scan has been
// outstanding past RELEASE_AFTER_MS while /activities shows its sections idle is over, whatever the socket says.
// Back-pressure must never wait on a signal that may not come (a socket whose pongs still come from a notifier
// that hung, an `ended` Plex never sent).
import { ConditionLog } from '../../../log/condition.js';
import { PlexScanProgress } from './activities.js';
import type { FollowUp } from './follow-up.js';
import type { PlexFollowerOptions } from './follow-state.js';

/**
 * How long a scan may stay outstanding before /activities is asked about it even while the socket is trusted:
 * the stated limit of the cross-check. A section idle there (and with no end heard within the last interval,
 * the gap between two of its scans) this long after Plex took the refresh has nothing left of it. Its cost is
 * one /activities request per interval while some scan is older than this.
 */
export const RELEASE_AFTER_MS = 10_000;

export type PollAnswer =
  | {
      /** Sections scanning, as far as this poll can tell. */
      running: Set<string>;
      /** Follow-ups the cross-check found over. */
      released: Set<FollowUp>;
      /** Sections /activities showed idle with no end heard there within the last interval, when it was asked. */
      quiet?: (sectionId: string) => boolean;
    }
  /** Plex did not answer /activities: nothing is known. */
  | { unreachable: string };

export class FollowPoll {
  private readonly progress: PlexScanProgress;
  private readonly said: ConditionLog;
  private unreachable?: string;

  constructor(private readonly opts: Pick<PlexFollowerOptions, 'api' | 'clock' | 'logger' | 'pollMs' | 'watch' | 'releaseAfterMs'>) {
    this.progress = new PlexScanProgress(opts.api);
    this.said = new ConditionLog({ logger: opts.logger, clock: opts.clock });
  }

  /** One look for every section followed; `started`: when the poll began. */
  async ask(followed: FollowUp[], started: number): Promise<PollAnswer> {
    const { watch, logger } = this.opts;
    // The events tell what runs only while connected, and once /activities was asked after the last (re)connect.
    if (watch?.connected && !watch.pollDue) return this.byEvents(followed, started);
    const connectedBefore = watch?.connected ?? false;
    let running: Set<string>;
    try {
      running = await this.progress.running();
    } catch (err) {
      const why = (err as Error).message;
      if (!this.unreachable) logger.warn(`Cannot ask Plex at ${this.opts.api.url} which scans run (${why}); following resumes when it answers.`);
      this.unreachable = why;
      return { unreachable: why };
    }
    // A scan that began before the socket opened sends no `started` to it, and a long one may send no progress
    // for a while: until /activities shows nothing the events do not know of, it is asked again each interval.
    if (connectedBefore) watch!.pollDue = [...running].some((id) => !watch!.scanning().has(id));
    if (this.unreachable) logger.info(`Plex at ${this.opts.api.url} answers again; following its scans resumes.`);
    this.unreachable = undefined;
    const justEnded = this.justEnded(followed, started);
    return { running, released: new Set(), quiet: (id) => !running.has(id) && !justEnded.has(id) };
  }

  /** The socket's word ended a scan: the cross-check's condition, if held, is over. */
  heard(): void {
    this.said.ends('released', `Plex's notification socket at ${this.opts.api.url} tells of scan ends again`);
  }

  private async byEvents(followed: FollowUp[], started: number): Promise<PollAnswer> {
    const watch = this.opts.watch!;
    const running = new Set(watch.scanning());
    // Between two of a section's scans the events show it idle for an instant, and a poll landing there would end
    // every follow-up queued behind them (and free their places under the cap): a section that ended a scan
    // within the last interval still counts as running.
    const justEnded = this.justEnded(followed, started);
    for (const id of justEnded) running.add(id);
    const limit = this.opts.releaseAfterMs ?? RELEASE_AFTER_MS;
    const overdue = followed.filter((f) => !f.ended && started - acceptedAt(f) >= limit);
    if (!overdue.length) return { running, released: new Set() };
    let asked: Set<string>;
    try {
      asked = await this.progress.running();
    } catch {
      return { running, released: new Set() }; // asked again at the next poll
    }
    const quiet = (id: string) => !asked.has(id) && !justEnded.has(id);
    const released = new Set(overdue.filter((f) => f.ticket.sections.every((s) => quiet(s.id))));
    if (released.size) {
      this.said.holds(
        'released',
        `${released.size} scan(s) on Plex at ${this.opts.api.url} outstanding for over ${limit / 1000} s with their sections idle in /activities: counted as ended, though the notification socket told of no end.`,
      );
    }
    return { running, released, quiet };
  }

  /** Sections of these follow-ups with a scan end heard within the last interval (the gap between two scans). */
  private justEnded(followed: FollowUp[], started: number): Set<string> {
    const watch = this.opts.watch;
    if (!watch) return new Set();
    const sections = new Set(followed.flatMap((f) => f.ticket.sections.map((s) => s.id)));
    return new Set(watch.endedSince(sections, started - this.opts.pollMs).map((e) => e.sectionId));
  }
}

/** When Plex took the follow-up's refresh (its delivery, for a ticket without the place). */
export function acceptedAt(f: FollowUp): number {
  return f.ticket.accepted?.at ?? f.item.deliveredAt;
}
