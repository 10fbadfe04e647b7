// Which Plex sections are being scanned: GET /activities, or the sections' `refreshing` flag.
//
// Plex's refresh endpoint answers 200 as soon as the scan is queued; the scan itself runs later. The only
// signals that it ended are an activity disappearing from /activities or the section's `refreshing` flag going
// back to false. Both are per section, not per folder.
import { PLEX_ACTIVITIES } from '../../../http/answer-caps.js';
import { ApiRefusal } from '../../../http/api-call.js';
import type { PlexApi } from '../api.js';

/** Activity types that mean "this section is being scanned or its new items are being refreshed". */
export const SCAN_ACTIVITY_TYPES = new Set(['library.update.section', 'library.refresh.items']);

export interface PlexActivity {
  type: string;
  sectionId?: string;
  title?: string;
  progress?: number;
}

export async function activitiesOf(api: PlexApi): Promise<PlexActivity[] | 'unsupported'> {
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

/** The ids of the sections Plex is scanning now. */
export type RunningSections = Set<string>;

/**
 * One question to Plex covers every section: GET /activities, or, on servers without it, the `refreshing` flag
 * of GET /library/sections. A follower asks this once per interval however many folders it follows.
 */
export class PlexScanProgress {
  private activitiesMissing = false;

  constructor(private readonly api: PlexApi) {}

  async running(): Promise<RunningSections> {
    if (!this.activitiesMissing) {
      const activities = await activitiesOf(this.api);
      if (activities !== 'unsupported') {
        return new Set(activities.filter((a) => SCAN_ACTIVITY_TYPES.has(a.type) && a.sectionId !== undefined).map((a) => a.sectionId!));
      }
      this.activitiesMissing = true;
    }
    const sections = await this.api.sections();
    return new Set(sections.filter((s) => s.refreshing).map((s) => s.id));
  }
}
