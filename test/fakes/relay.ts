// A fake autoscan (or another scanrelay) as a relay target sees it: POST/HEAD /triggers/manual behind Basic auth.
import { basicAuth, startRecorder, type Recorder } from './recorder.js';

export function startFakeRelay(user: string, password: string): Promise<Recorder> {
  return startRecorder((r) => {
    if (r.headers.authorization !== basicAuth(user, password)) return { status: 401 };
    if (r.path === '/triggers/manual' && (r.method === 'POST' || r.method === 'HEAD')) return r.method === 'POST' && !r.query.dir ? { status: 400 } : { status: 200 };
    return { status: 404 };
  });
}

export const relayed = (fake: Recorder) => fake.requests.filter((r) => r.method === 'POST').flatMap((r) => r.query.dir ?? []);
