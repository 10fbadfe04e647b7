// Hands a follower's outcome to the follow-up stage. A failure to record it (the queue file busy or full) is
// logged, not thrown: the delivery stays `following` in the queue file, so the next start follows it again.
import type { Logger } from '../log/logger.js';
import type { FollowItem, FollowResult } from '../scan.js';

export type RecordOutcome = (item: FollowItem, result: FollowResult) => Promise<void>;

export async function reportFollowUp(done: RecordOutcome | undefined, item: FollowItem, result: FollowResult, logger: Logger): Promise<void> {
  try {
    await done?.(item, result);
  } catch (err) {
    logger.error({ folder: item.folder, err: String(err) }, `could not record the follow-up of '${item.folder}'; it is followed again after a restart`);
  }
}
