// Release names come from indexers, so strangers choose them: through the real service to fake Discord, ntfy,
// Gotify and Apprise receivers on 127.0.0.1, a name that would ping, bold and link shows as typed and pings no
// one, and a 10 KB name of emoji, CJK and accented letters is cut on a character boundary under each limit.
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { notifySchema } from '../../src/notify/schema.js';
import { startRecorder, type Recorder } from '../fakes/recorder.js';
import { testService, type TestService } from '../support/service.js';
import { LONE_SURROGATE } from '../support/surrogates.js';

let t: TestService;
const receivers: Recorder[] = [];
afterEach(async () => {
  await t?.close();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const receiver = async () => {
  const r = await startRecorder(() => ({ status: 204 }));
  receivers.push(r);
  return r;
};

/** One notifier of each type that renders text, each hearing of scans that gave up. */
async function start() {
  const [discord, ntfy, gotify, apprise] = [await receiver(), await receiver(), await receiver(), await receiver()];
  const notify = [
    { NAME: 'discord', TYPE: 'discord', URL: `${discord.url}/api/webhooks/1/tok` },
    { NAME: 'phone', TYPE: 'ntfy', URL: `${ntfy.url}/alerts` },
    { NAME: 'gotify', TYPE: 'gotify', URL: `${gotify.url}/message?token=t` },
    { NAME: 'apprise', TYPE: 'apprise', URL: `${apprise.url}/notify/media` },
  ].map((n) => ({ ...n, EVENTS: ['scan-failed'] }));
  t = await testService({ config: { NOTIFY: notifySchema().parse(notify) as Config['NOTIFY'] } });
  return { discord, ntfy, gotify, apprise };
}

async function gaveUp(folder: string, detail: string) {
  t.service.activity.emit('finished', { folder, outcome: 'exhausted', detail });
  t.service.notifications.tick();
  await t.service.notifications.flush();
}

interface DiscordBody {
  content: string;
  embeds: { title: string; description: string }[];
  allowed_mentions?: { parse: string[] };
}

/** What Discord shows of escaped text: a backslash before ASCII punctuation shows that character. */
const shown = (markdown: string) => markdown.replace(/\\([!-/:-@[-`{-~])/g, '$1');

const ATTACK = '@everyone <@&123> **bold** [x](http://evil) @here';

describe('a name chosen by a stranger', () => {
  it('pings no one on Discord and shows as typed; plain-text receivers get it as it is', async () => {
    const { discord, ntfy, gotify, apprise } = await start();
    const folder = `/data/media/tv/${ATTACK}`;
    await gaveUp(folder, `Plex said: ${ATTACK}`);

    const body = discord.requests[0].body as DiscordBody;
    expect(body.allowed_mentions).toEqual({ parse: [] });
    // Nothing of the name can format, link or mention: every markdown character in it is escaped, and what
    // Discord shows is the name as typed.
    const escaped = String.raw`\@everyone \<\@&123\> \*\*bold\*\* \[x\]\(http\://evil\) \@here`;
    expect(body.content).toBe(String.raw`/data/media/tv/${escaped}: exhausted. Plex said\: ${escaped}`);
    expect(body.content).not.toMatch(/(^|[^\\])[@*[<]/);
    expect(shown(body.content)).toBe(`${folder}: exhausted. Plex said: ${ATTACK}`);
    // Our own words and formatting stay: the title as written, the field names in bold.
    expect(body.embeds[0].title).toBe('scanrelay: a scan gave up');
    expect(body.embeds[0].description.split('\n')).toEqual([
      body.content,
      `**folder**: /data/media/tv/${escaped}`,
      '**outcome**: exhausted',
      String.raw`**detail**: Plex said\: ${escaped}`,
    ]);

    // ntfy shows plain text (no Markdown header), Gotify is told text/plain, Apprise format text: as typed.
    expect(ntfy.requests[0].headers).not.toHaveProperty('markdown');
    expect(ntfy.requests[0].headers).not.toHaveProperty('x-markdown');
    expect(ntfy.requests[0].body).toBe(`${folder}: exhausted. Plex said: ${ATTACK}\nfolder: ${folder}\noutcome: exhausted\ndetail: Plex said: ${ATTACK}`);
    expect(gotify.requests[0].body).toMatchObject({ message: expect.stringContaining(ATTACK), extras: { 'client::display': { contentType: 'text/plain' } } });
    expect(apprise.requests[0].body).toMatchObject({ body: expect.stringContaining(ATTACK), format: 'text' });
  });

  it('10 KB of emoji, CJK and accents: cut on a character boundary under each limit, ending with an ellipsis', async () => {
    const { discord, ntfy } = await start();
    // 4-byte emoji (a surrogate pair each), an emoji with a skin tone (two pairs, one cluster), 3-byte CJK, and an
    // e with a combining accent (two code points, one letter): every kind of boundary a cut can fall near.
    // The 30 characters before the name put every limit's cut inside a cluster: between 👍 and its skin tone for
    // ntfy and the description, between e and its accent for the content.
    const name = '🎬👍🏽字幕e\u0301'.repeat(600);
    const folder = `/data/media/movies/Cut Here 1/${name}`;
    expect(Buffer.byteLength(folder)).toBeGreaterThan(10_000);
    await gaveUp(folder, 'gave up');

    const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const atBoundary = (text: string, at: number) => [...graphemes.segment(text)].some((s) => s.index === at) || at === text.length;

    // ntfy: at most 4,096 bytes of valid UTF-8, a start of the text, then the ellipsis.
    const raw = ntfy.requests[0].raw;
    expect(raw.length).toBeLessThanOrEqual(4096);
    expect(raw.length).toBeGreaterThan(4096 - 12);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    expect(text.endsWith('…')).toBe(true);
    const kept = text.slice(0, -1);
    expect(folder.startsWith(kept)).toBe(true);
    expect(atBoundary(folder, kept.length)).toBe(true);

    // Discord: content within 2,000 characters and the description within 4,096, counted in UTF-16 units (never
    // fewer than code points), each a start of the escaped text on a cluster boundary.
    const body = discord.requests[0].body as DiscordBody;
    for (const [field, max] of [[body.content, 2000], [body.embeds[0].description, 4096]] as const) {
      expect(field.length).toBeLessThanOrEqual(max);
      expect(field.length).toBeGreaterThan(max - 8);
      expect(field.endsWith('…')).toBe(true);
      expect(field).not.toMatch(LONE_SURROGATE);
      const start = shown(field.slice(0, -1));
      expect(folder.startsWith(start)).toBe(true);
      expect(atBoundary(folder, start.length)).toBe(true);
    }
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(discord.requests[0].raw)).not.toThrow();
  });
});
