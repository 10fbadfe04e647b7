// Which sections one Plex server is scanning, for the follower's poll: the socket's events while they can be
// trusted, else GET /activities (or the sections' `refreshing` flag on a server without it), one question for every
// section however many folders are followed. And the cross-check that cannot stall: a scan outstanding past
// RELEASE_AFTER_MS while /activities shows its sections idle is over, whatever the socket says (a notifier that hung
// still answers pings; Plex may never send an `ended`). Plex's refresh endpoint answers as soon as the scan is
// queued: an activity gone, or `refreshing` false again, is the only sign of its end, per section, not per folder.
import { PLEX_ACTIVITIES } from '../../../http/answer-caps.js';
import { ApiRefusal } from '../../../http/api-call.js';
import type { Clock } from '../../../clock.js';
import { ConditionLog } from '../../../log/condition.js';
import type { Logger } from '../../../log/logger.js';
import type { PlexApi } from '../api.js';
import { acceptedAt, type PlexFollowUp } from './follow-up.js';
import type { PlexNotifications } from './notifications.js';

/**
 * The stated limit of the cross-check: a scan outstanding this long has /activities asked about it even while the
 * socket is trusted; a section idle there (no end seen within the last interval) has nothing left of it.
 */
export const RELEASE_AFTER_MS = 10_000;

/** Activity types that mean "this section is being scanned or its new items are being refreshed". */
const SCAN_ACTIVITY_TYPES = new Set(['library.update.section', 'library.refresh.items']);

export type PollAnswer =
  | {
      /** Sections scanning, as far as this poll can tell. */
      running: Set<string>;
      /** Keys of the follow-ups the cross-check found over. */
      freed: Set<string>;
      /** Sections /activities showed idle with no end seen there within the last interval, when it was asked. */
      idle?: (sectionId: string) => boolean;
    }
  /** Plex did not answer /activities: nothing is known. */
  | { unreachable: string };

export class RunningSections {
  /** The cross-check's condition, said once while it holds. */
  private readonly crossCheck: ConditionLog;
  private unreachable?: string;
  private activitiesMissing = false;

  constructor(private readonly opts: { api: PlexApi; clock: Clock; logger: Logger; pollMs: number; watch?: PlexNotifications; releaseAfterMs?: number }) {
    this.crossCheck = new ConditionLog({ logger: opts.logger, clock: opts.clock });
  }

  /** The socket's word ended a scan: the cross-check's condition, if held, is over. */
  seenEnd(): void {
    this.crossCheck.ends('freed', `Plex's notification socket at ${this.opts.api.url} tells of scan ends again`);
  }

  /** One look for every section followed; `started`: when the poll began. */
  async ask(followed: PlexFollowUp[], started: number): Promise<PollAnswer> {
    const { watch, logger } = this.opts;
    // The events tell what runs only while connected, and once /activities was asked after the last (re)connect.
    if (watch?.connected && !watch.pollDue) return this.byEvents(followed, started);
    const connectedBefore = watch?.connected ?? false;
    let running: Set<string>;
    try {
      running = await this.sectionsScanning();
    } catch (err) {
      const why = (err as Error).message;
      if (!this.unreachable) logger.warn(`Cannot ask Plex at ${this.opts.api.url} which scans run (${why}); following resumes when it answers.`);
      this.unreachable = why;
      return { unreachable: why };
    }
    // A scan that began before the socket opened sends no `started` to it, and a long one may send no progress
    // for a while: until /activities shows nothing the events do not know of, it is asked again each interval.
    if (connectedBefore) watch!.pollDue = [...running].some((id) => !watch!.scans.scanning().has(id));
    if (this.unreachable) logger.info(`Plex at ${this.opts.api.url} answers again; following its scans resumes.`);
    this.unreachable = undefined;
    const justEnded = this.justEnded(followed, started);
    return { running, freed: new Set(), idle: (id) => !running.has(id) && !justEnded.has(id) };
  }

  private async byEvents(followed: PlexFollowUp[], started: number): Promise<PollAnswer> {
    const watch = this.opts.watch!;
    const running = new Set(watch.scans.scanning());
    // Between two of a section's scans the events show it idle for an instant, and a poll landing there would end
    // every follow-up queued behind them: a section that ended a scan within the last interval still counts as running.
    const justEnded = this.justEnded(followed, started);
    for (const id of justEnded) running.add(id);
    const limit = this.opts.releaseAfterMs ?? RELEASE_AFTER_MS;
    const overdue = followed.filter((f) => !f.ended && started - acceptedAt(f) >= limit);
    if (!overdue.length) return { running, freed: new Set() };
    let asked: Set<string>;
    try {
      asked = await this.sectionsScanning();
    } catch {
      return { running, freed: new Set() }; // asked again at the next poll
    }
    const idle = (id: string) => !asked.has(id) && !justEnded.has(id);
    const freed = new Set(overdue.filter((f) => f.ticket.sections.every((s) => idle(s.id))).map((f) => f.key));
    if (freed.size) {
      const why = `${freed.size} scan(s) on Plex at ${this.opts.api.url} outstanding for over ${limit / 1000} s with their sections idle in /activities: counted as ended, though the notification socket told of no end.`;
      this.crossCheck.holds('freed', why);
    }
    return { running, freed, idle };
  }

  /** Sections of these follow-ups with a scan end seen within the last interval (the gap between two scans). */
  private justEnded(followed: PlexFollowUp[], started: number): Set<string> {
    const watch = this.opts.watch;
    if (!watch) return new Set();
    const sections = new Set(followed.flatMap((f) => f.ticket.sections.map((s) => s.id)));
    return new Set(watch.endedSince(sections, started - this.opts.pollMs).map((e) => e.sectionId));
  }

  /** The sections Plex is scanning now: one question for every section, however many folders are followed. */
  private async sectionsScanning(): Promise<Set<string>> {
    if (!this.activitiesMissing) {
      const activities = await activitiesOf(this.opts.api);
      if (activities !== 'unsupported') return new Set(activities.filter((a) => SCAN_ACTIVITY_TYPES.has(a.type) && a.sectionId !== undefined).map((a) => a.sectionId!));
      this.activitiesMissing = true;
    }
    const sections = await this.opts.api.sections();
    return new Set(sections.filter((s) => s.refreshing).map((s) => s.id));
  }
}

async function activitiesOf(api: PlexApi): Promise<{ type: string; sectionId?: string }[] | 'unsupported'> {
  let res: Response;
  try {
    res = await api.request('GET', '/activities', PLEX_ACTIVITIES);
  } catch (err) {
    // Servers older than /activities answer 404 (or 400); that is "can't tell", not "Plex is down".
    if (err instanceof ApiRefusal && (err.status === 404 || err.status === 400)) return 'unsupported';
    throw err;
  }
  const body = (await res.json().catch(() => undefined)) as { MediaContainer?: { Activity?: unknown } } | undefined;
  if (body?.MediaContainer === undefined) return 'unsupported';
  const list = body.MediaContainer.Activity;
  // Plex leaves the Activity key out when nothing runs.
  if (!Array.isArray(list)) return [];
  return list.map((a) => {
    const act = a as Record<string, unknown>;
    const section = ((act.Context ?? {}) as Record<string, unknown>).librarySectionID ?? act.librarySectionID;
    return { type: String(act.type ?? ''), sectionId: section === undefined || section === null ? undefined : String(section) };
  });
}
