// Waits for Plex to finish scanning one section: follows GET /activities, or the section's `refreshing` flag.
//
// Plex's refresh endpoint answers 200 as soon as the scan is queued; the scan itself runs later. The only
// signals that it ended are an activity disappearing from /activities or the section's `refreshing` flag going
// back to false. Both are per section, not per folder, so another scan of the same section keeps us waiting
// longer; that is harmless because the wait is bounded.
import type { Clock } from '../clock.js';
import { PlexError, type PlexApi } from './api.js';

/** Activity types that mean "this section is being scanned or its new items are being refreshed". */
export const SCAN_ACTIVITY_TYPES = new Set(['library.update.section', 'library.refresh.items']);

export interface PlexActivity {
  type: string;
  sectionId?: string;
  title?: string;
  progress?: number;
}

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a poll of Plex says about one section; 'unsupported' when this server can't tell us. */
export type SectionScanState = 'running' | 'idle' | 'unsupported';

export interface ScanProgressSource {
  /** State of `sectionId` according to this source. Throws PlexError on HTTP/network trouble. */
  poll(sectionId: string): Promise<SectionScanState>;
}

export async function activitiesOf(api: PlexApi): Promise<PlexActivity[] | 'unsupported'> {
  let res: Response;
  try {
    res = await api.request('GET', '/activities');
  } catch (err) {
    // Servers older than /activities answer 404 (or 400); that is "can't tell", not "Plex is down".
    if (err instanceof PlexError && (err.status === 404 || err.status === 400)) return 'unsupported';
    throw err;
  }
  const body = (await res.json().catch(() => undefined)) as { MediaContainer?: { Activity?: unknown } } | undefined;
  if (body?.MediaContainer === undefined) return 'unsupported';
  const list = body.MediaContainer.Activity;
  // Plex leaves the Activity key out when nothing runs.
  if (!Array.isArray(list)) return [];
  return list.map((a) => {
    const act = a as Record<string, unknown>;
    const context = (act.Context ?? {}) as Record<string, unknown>;
    const section = context.librarySectionID ?? act.librarySectionID;
    return {
      type: String(act.type ?? ''),
      sectionId: section === undefined || section === null ? undefined : String(section),
      title: act.title === undefined ? undefined : String(act.title),
      progress: typeof act.progress === 'number' ? act.progress : undefined,
    };
  });
}

/** Prefers /activities; falls back to the `refreshing` flag of GET /library/sections once /activities is missing. */
export class PlexScanProgress implements ScanProgressSource {
  private activitiesMissing = false;

  constructor(private readonly api: PlexApi) {}

  async poll(sectionId: string): Promise<SectionScanState> {
    if (!this.activitiesMissing) {
      const activities = await activitiesOf(this.api);
      if (activities !== 'unsupported') {
        const running = activities.some((a) => SCAN_ACTIVITY_TYPES.has(a.type) && a.sectionId === sectionId);
        return running ? 'running' : 'idle';
      }
      this.activitiesMissing = true;
    }
    const section = (await this.api.sections()).find((s) => s.id === sectionId);
    if (!section) return 'unsupported';
    return section.refreshing ? 'running' : 'idle';
  }
}

export type ScanWait =
  /** `observed`: the scan was seen running and then ended; false when it was never seen (too quick, or queued). */
  | { state: 'finished'; ms: number; observed: boolean }
  | { state: 'timeout'; ms: number }
  | { state: 'unobservable'; ms: number; reason: string };

export interface WaitOptions {
  timeoutMs: number;
  clock: Clock;
  sleep: Sleep;
  /** First pause between polls; doubles up to maxPollMs so a one-folder scan is seen ending quickly. */
  firstPollMs?: number;
  maxPollMs?: number;
  /** How long to wait for a scan that was never seen running before deciding it already ran. */
  startGraceMs?: number;
}

/**
 * Polls until the section's scan ends, bounded by `timeoutMs`. Elapsed time is the larger of the clock's
 * and the sum of our own pauses, so the bound holds both with a frozen test clock and with slow answers.
 */
export async function waitForSectionScan(source: ScanProgressSource, sectionId: string, opts: WaitOptions): Promise<ScanWait> {
  const start = opts.clock.now();
  const maxPoll = opts.maxPollMs ?? 2_000;
  const grace = Math.min(opts.startGraceMs ?? 5_000, opts.timeoutMs);
  let pause = opts.firstPollMs ?? 25;
  let slept = 0;
  let seen = false;
  const elapsed = () => Math.max(slept, opts.clock.now() - start);
  for (;;) {
    let state: SectionScanState;
    try {
      state = await source.poll(sectionId);
    } catch (err) {
      return { state: 'unobservable', ms: elapsed(), reason: `Plex did not say whether the scan ended (${(err as Error).message})` };
    }
    if (state === 'unsupported') {
      return { state: 'unobservable', ms: elapsed(), reason: 'this Plex reports neither /activities nor the section refreshing flag' };
    }
    if (state === 'running') seen = true;
    else if (seen || elapsed() >= grace) return { state: 'finished', ms: elapsed(), observed: seen };
    if (elapsed() >= opts.timeoutMs) return { state: 'timeout', ms: elapsed() };
    const wait = Math.min(pause, Math.max(1, opts.timeoutMs - elapsed()));
    await opts.sleep(wait);
    slept += wait;
    pause = Math.min(maxPoll, pause * 2);
  }
}
