// Benchmark 13 — back-pressure from Plex: the apps ask three times faster than Plex scans (30 webhooks/s, Plex
// 10 scans/s one at a time), for BENCH_PRESSURE_SECONDS (default 60) of the service's clock, through the real
// service against the fake Plex with its notification socket (as a real Plex has it; PLEX_NOTIFICATIONS is on by
// default), on a stepped clock (test/support/pressure.ts). Two workloads: every webhook a new season folder
// (nothing can merge, as in the report: 899 webhooks, 899 refreshes), and 300 folders asked in turn. Each first
// with the cap set very high (the old behaviour, baseline), then with the default cap; then, as a finding beside
// it, the default cap with the socket unavailable (scans followed by polling /activities).
import { DEFAULT_MAX_OUTSTANDING } from '../src/processor/server-backlog.js';
import { runPressure, type PressureResult } from '../test/support/pressure.js';
import { log, type Figure } from './support.js';

const SECONDS = Number(process.env.BENCH_PRESSURE_SECONDS ?? 60);
const HIGH = 100_000;

const line = (r: PressureResult) =>
  `${r.webhooks} webhooks, ${r.refreshes} refreshes (per folder ${r.refreshesPerFolder.min}-${r.refreshesPerFolder.max}, mean ${r.refreshesPerFolder.mean.toFixed(1)}), ` +
  `Plex backlog max ${r.peakBacklog}, Plex ran ${r.scansRun} of the ${r.scanSlots} scans it could during the load (idle ${r.idleWhileQueued} while folders waited here), ` +
  `outcomes ${Object.entries(r.outcomes).map(([k, v]) => `${k} ${v}`).join(', ')}, lost ${r.lost}, duplicates ${r.duplicates}, ` +
  `not scanned after last request ${r.notScannedAfterLast}, drained ${r.drainSeconds.toFixed(0)} s after the load, longest due wait ${r.maxDueWaitSeconds.toFixed(0)} s`;

export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [label, folders] of [['new folder each', 1_000_000], ['300 folders', 300]] as const) {
    const load = { loadSeconds: SECONDS, webhooksPerSecond: 30, scansPerSecond: 10, folders, delaySeconds: 1, confirmTimeoutSeconds: 60 };
    const before = await runPressure({ ...load, maxOutstanding: HIGH });
    log(`  ${label}, cap ${HIGH}, socket: ${line(before)}`);
    const after = await runPressure({ ...load, maxOutstanding: DEFAULT_MAX_OUTSTANDING });
    log(`  ${label}, cap ${DEFAULT_MAX_OUTSTANDING}, socket: ${line(after)}`);
    const polling = await runPressure({ ...load, maxOutstanding: DEFAULT_MAX_OUTSTANDING, notifications: false });
    log(`  ${label}, cap ${DEFAULT_MAX_OUTSTANDING}, polling /activities (no socket; a finding): ${line(polling)}`);
    // Real outcomes: confirmed, or scanned where nothing could tell more (no database here); none by a timeout.
    const real = (r: PressureResult) => Object.keys(r.outcomes).every((o) => o === 'confirmed' || o === 'scanned');
    figures.push(
      {
        id: '13',
        name: `back-pressure, ${label}: Plex's largest backlog`,
        value: after.peakBacklog,
        unit: 'scans',
        baseline: { label: `cap ${HIGH}`, value: before.peakBacklog, unit: 'scans' },
        target: `≤ ${DEFAULT_MAX_OUTSTANDING}, outcomes confirmed or scanned, lost 0, duplicates 0`,
        pass: after.peakBacklog <= DEFAULT_MAX_OUTSTANDING && real(after) && after.lost === 0 && after.duplicates === 0 && after.notScannedAfterLast === 0,
        note: `cap ${DEFAULT_MAX_OUTSTANDING}: ${line(after)}. Cap ${HIGH}: ${line(before)}.`,
      },
      {
        id: '13',
        name: `back-pressure, ${label}, cap ${DEFAULT_MAX_OUTSTANDING}: scans Plex ran during the load (it idled ${after.idleWhileQueued} while folders waited here; the first second nothing is due)`,
        value: after.scansRun,
        unit: 'scans',
        baseline: { label: `polling /activities, no socket (a finding; idle ${polling.idleWhileQueued})`, value: polling.scansRun, unit: 'scans' },
        target: `≥ ${after.scanSlots - 12} of ${after.scanSlots}`,
        pass: after.scansRun >= after.scanSlots - 12,
        note: `polling: ${line(polling)}.`,
      },
    );
  }
  return figures;
}
