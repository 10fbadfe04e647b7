// A fake Sonarr or Radarr (API v3): the series/movie list with folders, POST /api/v3/command, system status.
import { startRecorder, type Recorder } from './recorder.js';

export interface FakeArrItem {
  id: number;
  title: string;
  path: string;
}

export function startFakeArr(kind: 'sonarr' | 'radarr', apiKey: string, items: FakeArrItem[]): Promise<Recorder> {
  const listPath = kind === 'sonarr' ? '/api/v3/series' : '/api/v3/movie';
  return startRecorder((r) => {
    if (r.headers['x-api-key'] !== apiKey) return { status: 401, body: { message: 'Unauthorized' } };
    if (r.method === 'GET' && r.path === listPath) return { status: 200, body: items.map((i) => ({ ...i, monitored: true })) };
    if (r.method === 'GET' && r.path === '/api/v3/system/status') return { status: 200, body: { appName: kind, version: '4.0.0' } };
    if (r.method === 'POST' && r.path === '/api/v3/command') return { status: 201, body: { id: 1, ...(r.body as object), status: 'queued' } };
    return { status: 404 };
  });
}

/** The commands received, as sent. */
export const commands = (fake: Recorder) => fake.requests.filter((r) => r.method === 'POST' && r.path === '/api/v3/command').map((r) => r.body);
