// What httpFetch (src/http/fetch.ts) builds an answer and its request headers from, in place of Node's global
// Headers and Response. Those two globals are undici's: touching either loads all of Node's fetch client, which
// an idle relay then holds for good (docs/performance.md, "Idle memory"). The
// callers read status, headers, text/json/bytes and cancel a body, so that is what these offer; the type stays
// fetch's, so a caller or a test may pass Node's own fetch instead.

import { parseAnswer } from './json-cost.js';

type HeaderInit = NonNullable<NonNullable<Parameters<typeof fetch>[1]>['headers']>;

/** Header fields by lower-case name, as Headers keeps them: a repeated field joined with ", ". */
export class HeaderFields implements Iterable<[string, string]> {
  private readonly fields = new Map<string, string>();

  constructor(init?: HeaderInit) {
    if (init === undefined) return;
    const pairs: Iterable<readonly [string, string]> =
      Symbol.iterator in Object(init) ? (init as Iterable<readonly [string, string]>) : Object.entries(init as Record<string, string>);
    for (const [name, value] of pairs) this.append(name, value);
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.fields.get(key);
    this.fields.set(key, had === undefined ? String(value) : `${had}, ${value}`);
  }
  set(name: string, value: string): void {
    this.fields.set(name.toLowerCase(), String(value));
  }
  get(name: string): string | null {
    return this.fields.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }
  delete(name: string): void {
    this.fields.delete(name.toLowerCase());
  }
  forEach(each: (value: string, name: string, parent: HeaderFields) => void): void {
    for (const [name, value] of this.fields) each(value, name, this);
  }
  getSetCookie(): string[] {
    const v = this.fields.get('set-cookie');
    return v === undefined ? [] : [v];
  }
  entries(): IterableIterator<[string, string]> {
    return this.fields.entries();
  }
  keys(): IterableIterator<string> {
    return this.fields.keys();
  }
  values(): IterableIterator<string> {
    return this.fields.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.fields.entries();
  }
}

/** A whole answer already read: fetch's Response for what scanrelay reads of one. */
class Answer {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  private used = false;
  private stream?: ReadableStream<Uint8Array>;

  constructor(
    private readonly content: Uint8Array | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: HeaderFields,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status <= 299;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.content === null) return null;
    const bytes = this.content;
    return (this.stream ??= new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }));
  }
  get bodyUsed(): boolean {
    return this.used;
  }

  private take(): Uint8Array {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    return this.content ?? new Uint8Array(0);
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.take();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  async bytes(): Promise<Uint8Array> {
    // Not copied: an arr app's library list may be 100 MB.
    return this.take();
  }
  async text(): Promise<string> {
    // fetch's decoding: UTF-8, a byte-order mark dropped.
    return new TextDecoder().decode(this.take());
  }
  async json(): Promise<unknown> {
    // Never JSON.parse unbounded: what the parse would cost is counted first (src/json-cost.ts).
    return parseAnswer(this.take());
  }
}

/** fetch's Response for an answer read whole (`bytes` null: no body, as for HEAD or 204). */
export function answerOf(bytes: Uint8Array | null, init: { status: number; statusText: string; headers: HeaderFields; url: string }): Response {
  return new Answer(bytes, init.status, init.statusText, init.headers, init.url) as unknown as Response;
}
