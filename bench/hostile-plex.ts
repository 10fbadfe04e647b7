// The hostile Plex of benchmark 14 (bench/timeline-flood.ts), in a process of its own so that building and sending
// its flood never shares a thread with the harness's measuring: the fake Plex (test/fakes/plex.ts) with its
// notification socket, scanning the relay's folders one at a time as Plex does (each scan's own entries and end
// on the socket), and, when told, a flood of timeline entries for its other sections, where no scan is followed
// (what agents' and scheduled tasks' refreshes send all day, here without end), with scans `started` and never
// `ended`. Driven over IPC: `start` → `ready`; `connected` once the relay's socket is open; `flood` → `flooded`
// with what was sent; `report` → the refreshes the relay sent.
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications, type FakePlexNotifications } from '../test/fakes/plex-notifications.js';

export interface HostileStart {
  type: 'start';
  /** Files on the disk Plex sees: a scan of their folder adds them to the library (and says so on the socket). */
  files: string[];
  /** Sections the flood's entries name (none holds a folder the relay is sent). */
  floodSections: string[];
  /** How long each scan of the relay's folders takes, one at a time. */
  scanMs: number;
}
export interface HostileFlood {
  type: 'flood';
  seconds: number;
  entriesPerSecond: number;
  entriesPerFrame: number;
  /** Scans `started` (never ended) per second, across the flood's sections. */
  startedPerSecond: number;
}
export interface Flooded {
  type: 'flooded';
  entries: number;
  frames: number;
  started: number;
  seconds: number;
}
export interface Report {
  type: 'report';
  refreshes: { section: string; path: string }[];
  requests: number;
}

let plex: FakePlex | undefined;
let socket: FakePlexNotifications | undefined;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const send = (m: object) => process.send!(m);

/** One frame of `n` processing entries (state 5, as an agent's refresh sends) in `section`, item ids from `first`. */
function timelineFrame(section: string, first: number, n: number): string {
  let s = `{"NotificationContainer":{"type":"timeline","size":${n},"TimelineEntry":[`;
  for (let i = 0; i < n; i++) {
    const id = first + i;
    s += `${i ? ',' : ''}{"identifier":"com.plexapp.plugins.library","sectionID":"${section}","itemID":"${id}","type":4,"title":"Episode ${id}","state":5,"updatedAt":1767225600}`;
  }
  return `${s}]}}`;
}

const startedFrame = (uuid: string, section: string) =>
  JSON.stringify({ NotificationContainer: { type: 'activity', size: 1, ActivityNotification: [{ event: 'started', uuid, Activity: { uuid, type: 'library.update.section', cancellable: false, userID: 1, title: 'Scanning', subtitle: '', progress: 0, Context: { librarySectionID: section } } }] } });

async function start(m: HostileStart): Promise<void> {
  plex = new FakePlex({
    sections: [
      { key: '2', title: 'TV Shows', type: 'show', locations: ['/data/media/tv'] },
      ...m.floodSections.map((key) => ({ key, title: `Library ${key}`, type: 'movie', locations: [`/data/library-${key}`] })),
    ],
  });
  plex.fifoMs = m.scanMs;
  await plex.start();
  socket = attachPlexNotifications(plex);
  for (const f of m.files) plex.onDisk.add(f);
  send({ type: 'ready', url: plex.url, token: plex.token });
  while (socket.clients === 0) await sleep(10);
  send({ type: 'connected' });
}

/**
 * Sends entries at `entriesPerSecond`, in frames, each frame once the socket has taken the one before (so a
 * relay that reads slower than the rate sets the pace, and what was sent is what reached its socket).
 */
async function flood(m: HostileFlood, sections: string[]): Promise<void> {
  const t0 = performance.now();
  const end = t0 + m.seconds * 1000;
  let entries = 0;
  let frames = 0;
  let started = 0;
  for (let now = t0; now < end; now = performance.now()) {
    const elapsed = (now - t0) / 1000;
    while (started < elapsed * m.startedPerSecond) {
      await socket!.sendRaw(startedFrame(`hostile-${started}`, sections[started % sections.length]));
      started++;
    }
    if (entries + m.entriesPerFrame > elapsed * m.entriesPerSecond) {
      await sleep(1);
      continue;
    }
    await socket!.sendRaw(timelineFrame(sections[frames % sections.length], entries, m.entriesPerFrame));
    entries += m.entriesPerFrame;
    frames++;
  }
  send({ type: 'flooded', entries, frames, started, seconds: (performance.now() - t0) / 1000 } satisfies Flooded);
}

let sections: string[] = [];
process.on('message', (m: HostileStart | HostileFlood | { type: 'report' | 'stop' }) => {
  if (m.type === 'start') {
    sections = m.floodSections;
    void start(m);
  } else if (m.type === 'flood') void flood(m, sections);
  else if (m.type === 'report') send({ type: 'report', refreshes: plex!.refreshes, requests: plex!.requests.length } satisfies Report);
  else if (m.type === 'stop') void Promise.all([socket?.close(), plex?.stop()]).finally(() => process.exit(0));
});
