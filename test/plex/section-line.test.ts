// The section line's count when the notification socket opens: a scan Plex took whose delivery is still being
// recorded (a group commit away from its follow-up) is still ahead in the line, so a later follow-up is not
// passed one scan early. A scan with nothing to follow counts as ended, as before.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Followed, PlexTicket } from '../../src/plex/follow-state.js';
import type { PlexScanWatch } from '../../src/plex/scan-watch.js';
import { SectionLines } from '../../src/plex/section-line.js';

function setup() {
  const clock = new ManualClock();
  const watch = { connectedSince: undefined as number | undefined };
  const line = new SectionLines({ clock, watch: watch as unknown as PlexScanWatch });
  const followed = (accepted: PlexTicket['accepted']): Followed =>
    ({ item: {}, ticket: { sections: [{ id: '2', title: 'TV' }], file: '/tv/a.mkv', accepted }, addedAtPoll: 0, seenRunning: false, followedAt: clock.now() }) as unknown as Followed;
  /** The socket opens now: the line is rebased on what is followed. */
  const connect = (items: Followed[]) => {
    watch.connectedSince = clock.now();
    line.rebase(items);
  };
  /** A follow-up placed after the socket opened (its place counts). */
  const placedFollowUp = () => {
    const f = followed(line.accepted('2'));
    line.recorded(f.ticket.accepted);
    f.seq = line.placeOf(f.ticket.accepted);
    return f;
  };
  return { clock, line, followed, connect, placedFollowUp };
}

describe('the section line when the socket opens', () => {
  it('counts a scan Plex took but whose delivery is not recorded yet as still ahead', () => {
    const { clock, line, followed, connect, placedFollowUp } = setup();
    const first = followed(line.accepted('2'));
    line.recorded(first.ticket.accepted);
    line.accepted('2'); // Plex answered; the delivery is waiting for its group commit
    clock.advance(5);
    connect([first]);
    clock.advance(5);
    const third = placedFollowUp();
    expect(third.seq).toEqual({ '2': 3 });
    // Plex ends the first and the second scan: the third is still running.
    line.ended('2');
    line.ended('2');
    expect(line.passedInLine([third])).toEqual([]);
    line.ended('2');
    expect(line.passedInLine([third])).toEqual([third]);
  });

  it('counts a scan with nothing to follow as ended', () => {
    const { clock, line, followed, connect, placedFollowUp } = setup();
    const first = followed(line.accepted('2'));
    line.recorded(first.ticket.accepted);
    line.recorded(line.accepted('2')); // no file: the Plex target said there is nothing to follow
    clock.advance(5);
    connect([first]);
    const third = placedFollowUp();
    line.ended('2');
    expect(line.passedInLine([third])).toEqual([]);
    line.ended('2');
    expect(line.passedInLine([third])).toEqual([third]);
  });

  it('forgets an unrecorded place after a minute (its delivery ended some way not seen here)', () => {
    const { clock, line, followed, connect, placedFollowUp } = setup();
    const first = followed(line.accepted('2'));
    line.recorded(first.ticket.accepted);
    line.accepted('2');
    clock.advance(61_000);
    connect([first]);
    const third = placedFollowUp();
    line.ended('2');
    line.ended('2');
    expect(line.passedInLine([third])).toEqual([third]);
  });
});
