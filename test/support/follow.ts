// Runs one target scan and, when the target follows it, its follow-up to the end: the two stages in one call.
import type { Clock } from '../../src/clock.js';
import type { FollowResult, ScanContext, ScanOutcome, Target } from '../../src/scan.js';

export type Followed = ScanOutcome & { followed?: FollowResult };

let nextId = 1;

/** `detail` of a followed scan joins the delivery's detail and the follow-up's, as history lists them. */
export async function scanAndFollow(target: Pick<Target, 'scan' | 'follower'>, folder: string, context: ScanContext, clock: Clock): Promise<Followed> {
  const outcome = await target.scan(folder, context);
  if (outcome.status !== 'scanned' || outcome.follow === undefined || !target.follower) return outcome;
  const follower = target.follower;
  const id = nextId++;
  const followed = await new Promise<FollowResult>((resolve) => {
    follower.start(async (_item, result) => resolve(result));
    follower.follow({ ref: { folderId: id, generation: 1 }, folder, event: context.event, deliveredAt: clock.now(), ticket: outcome.follow });
  });
  await follower.stop();
  return { ...outcome, detail: `${outcome.detail}; ${followed.detail}`, followed };
}
