// When each folder was last asked for, by any request (a webhook, the manual page, a caught-up event): an event read
// from an app's history whose folder was asked for at or after it happened is already held by that request's scan,
// which comes after the file was in place. So a request that came by webhook and the same event from the history
// are one scan. Fed by the intake (the activity feed's `queued`) and, at start, by the queue file.
//
// Bounded: while an app is down its cursor holds, so nothing is forgotten, and every folder queued meanwhile would be
// kept. Past MAX_ASKED folders the one noted longest ago goes first (a Map keeps the order of the last note):
// the cost is at most a caught-up event scanned once more, never one missed.
export const MAX_ASKED = 100_000;

export class AskedFolders {
  private readonly at = new Map<string, number>();

  /** `folder` (as queued, after SERVER_PATH_MAPPINGS) was asked for at `at` (ms, the relay's clock). */
  note(folder: string, at: number): void {
    const was = this.at.get(folder);
    if (was !== undefined && was >= at) return;
    // Noted again: moved to the end, the newest.
    this.at.delete(folder);
    this.at.set(folder, at);
    if (this.at.size > MAX_ASKED) this.at.delete(this.at.keys().next().value!);
  }

  /** Whether a request for `folder` came at or after `date` (an event's time, the app's clock). */
  askedSince(folder: string, date: number): boolean {
    return (this.at.get(folder) ?? -Infinity) >= date;
  }

  /** Forgets what no reading can ask about any more: requests before `before`. */
  forget(before: number): void {
    for (const [folder, at] of this.at) if (at < before) this.at.delete(folder);
  }

  get size(): number {
    return this.at.size;
  }
}
