// A fake Tdarr: POST /api/v2/scan-files and GET /api/v2/status, with the optional x-api-key check.
import { startRecorder, type Recorder } from './recorder.js';

export function startFakeTdarr(apiKey?: string): Promise<Recorder> {
  return startRecorder((r) => {
    if (apiKey !== undefined && r.headers['x-api-key'] !== apiKey) return { status: 401, body: 'Unauthorized' };
    if (r.method === 'GET' && r.path === '/api/v2/status') return { status: 200, body: { status: 'good' } };
    if (r.method === 'POST' && r.path === '/api/v2/scan-files') return { status: 200, body: 'OK' };
    return { status: 404 };
  });
}
