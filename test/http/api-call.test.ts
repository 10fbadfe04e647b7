// What the API caller (src/http/api-call.ts) echoes of a server's refusal: the start of its answer, cut on a character,
// so an emoji or a CJK name in an arr's validation message never reaches an error or a log line as half of itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_STATUS } from '../../src/http/answer-caps.js';
import { apiCaller, ApiRefusal } from '../../src/http/api-call.js';
import { startRecorder, type Recorder } from '../fakes/recorder.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

let server: Recorder;
/** Answered as JSON, `"` and then this: its 199th and 200th UTF-16 units are the answer's 200th and 201st. */
let said: string;
beforeAll(async () => {
  server = await startRecorder(() => ({ status: 400, body: said }));
});
afterAll(() => server.close());

const api = () => apiCaller({ who: 'sonarr', url: server.url, urlKey: 'the URL of TARGETS entry "s"', headers: {}, secrets: [], authHint: 'check TOKEN' });

describe("a server's refusal echoed in the error", () => {
  it.each(['😀', '𠀀'])('is its first 200 characters, never half of a %s at the cut', async (astral) => {
    said = `${'x'.repeat(198)}${astral.repeat(3)} and more after it`;
    const err = (await api().call('POST', '/api/v3/command', { cap: SERVER_STATUS }).catch((e: unknown) => e)) as ApiRefusal;
    expect(err).toBeInstanceOf(ApiRefusal);
    expect(err.message).not.toMatch(LONE_SURROGATE);
    expect(err.message.endsWith(`answered 400 Bad Request to POST /api/v3/command: "${'x'.repeat(198)}`)).toBe(true);
  });
});
