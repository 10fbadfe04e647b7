// A fake Audiobookshelf: Bearer-token auth, GET /api/libraries, POST /api/watcher/update, GET /ping.
import { startRecorder, type Recorder } from './recorder.js';

export const ABS_TOKEN = 'abs-token-4f1e2d';

export function startFakeAudiobookshelf(libraries = [{ id: 'lib-audio', name: 'Audiobooks', folders: [{ id: 'fol-1', fullPath: '/audiobooks' }] }]): Promise<Recorder> {
  return startRecorder((r) => {
    if (r.method === 'GET' && r.path === '/ping') return { status: 200, body: { success: true } };
    if (r.headers.authorization !== `Bearer ${ABS_TOKEN}`) return { status: 401, body: 'Unauthorized' };
    if (r.method === 'GET' && r.path === '/api/libraries') return { status: 200, body: { libraries } };
    if (r.method === 'POST' && r.path === '/api/watcher/update') return { status: 200 };
    return { status: 404 };
  });
}
