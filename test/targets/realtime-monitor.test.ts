// Jellyfin's real-time monitoring, read from each library's LibraryOptions.EnableRealtimeMonitor and said where
// people look: the path doctor (for a path in such a library), the dashboard's server card and /health (for every
// library scanrelay serves that has it on), with what it costs and how to turn it off. Against the model server.
import { describe, expect, it, onTestFinished } from 'vitest';
import { realtimeMonitorNote } from '../../src/targets/mediabrowser/realtime-monitor.js';
import { episodeFile, movieFile, movieLibrary, tvLibrary } from '../fakes/jellyfin-libraries.js';
import { jellyfinService, PASS, type JellyfinService } from '../support/jellyfin-service.js';

/** Shows with real-time monitoring on, Movies with it off; the probe has read the list, as the processor's first look does. */
async function world(): Promise<JellyfinService> {
  const t = await jellyfinService({
    setup: (s) => {
      tvLibrary(s.model, '/tv', { series: 1, seasons: 1, episodes: 1 }, 'Shows', { realtimeMonitor: true });
      movieLibrary(s.model, '/movies', 1, 'Movies');
      s.model.settle();
    },
  });
  await t.service.targets[0].available();
  return t;
}

describe('real-time monitoring, seen and said', () => {
  it('says which library has it on, what it costs on a local disk and a network mount, and where to turn it off', () => {
    expect(realtimeMonitorNote('jellyfin', [{ id: '1', title: 'Movies', locations: ['/movies'], realtimeMonitor: false }])).toBeUndefined();
    const note = realtimeMonitorNote('jellyfin', [{ id: '1', title: 'Shows', locations: ['/tv'], realtimeMonitor: true }])!;
    expect(note).toContain("library 'Shows'");
    expect(note).toMatch(/local disk.*60 s after every change.*network mount \(rclone, NFS, SMB\).*costs nothing/);
    expect(note).toContain("untick 'Enable real time monitoring'");
  });

  it('/health and the dashboard’s server card say it; the path doctor says it for a path in that library only', async () => {
    const t = await world();
    onTestFinished(() => t.close());
    const { service } = t;
    const health = (await service.app.inject({ url: '/health' })).json() as { targets: { notes?: string[] }[] };
    expect(health.targets[0].notes).toEqual([expect.stringContaining("Real-time monitoring is on for library 'Shows'")]);
    const dashboard = (await service.app.inject({ url: `/${PASS}/dashboard` })).body;
    expect(dashboard).toContain('Real-time monitoring is on for library &#39;Shows&#39;');
    const api = (await service.app.inject({ url: `/api/${PASS}/targets` })).json() as { targets: { notes?: string[] }[] };
    expect(api.targets[0].notes?.[0]).toContain('turn it off');
    const doctor = async (path: string) => (await service.app.inject({ url: `/${PASS}/doctor?path=${encodeURIComponent(path)}` })).body;
    expect(await doctor(episodeFile('/tv', 1, 1, 1))).toContain('Real-time monitoring is on');
    expect(await doctor(movieFile('/movies', 1))).not.toContain('Real-time monitoring is on');
  });
});
