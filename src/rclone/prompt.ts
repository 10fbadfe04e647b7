// rclone's question primitives (menus, yes/no, numbered choices, free entry, passwords) over any
// input/output stream pair, so the same wizard runs on a TTY and with answers piped on stdin.
import type { Readable, Writable } from 'node:stream';

export class InputEnded extends Error {
  constructor() {
    super('Failed to read line: EOF');
  }
}

export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

type TtyInput = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/**
 * Lines from a stream, one at a time, sharing one buffer — unlike rclone 1.60, answers piped in all
 * at once are not lost. In secret mode on a TTY the terminal is raw: nothing echoes, Enter ends.
 */
export class LineInput {
  private buffer = '';
  private ended = false;
  private waiter: { resolve: (line: string | undefined) => void; reject: (err: Error) => void; secret: boolean } | undefined;
  private attached = false;

  constructor(private readonly stream: TtyInput) {}

  get isTTY(): boolean {
    return !!this.stream.isTTY;
  }

  private attach(): void {
    if (this.attached) return;
    this.attached = true;
    this.stream.setEncoding('utf8');
    this.stream.on('data', this.onData);
    this.stream.on('end', this.onEnd);
    this.stream.on('error', this.onEnd);
  }

  private onData = (chunk: string): void => {
    if (this.waiter?.secret && this.isTTY) {
      for (const ch of chunk) {
        if (ch === '\x03') return this.finish(undefined, new Interrupted());
        if (ch === '\x7f' || ch === '\b') this.buffer = [...this.buffer].slice(0, -1).join('');
        else if (ch === '\r' || ch === '\n') {
          const line = this.buffer;
          this.buffer = '';
          return this.finish(line);
        } else this.buffer += ch;
      }
      return;
    }
    this.buffer += chunk;
    this.deliver();
  };

  private onEnd = (): void => {
    this.ended = true;
    this.deliver();
  };

  private finish(line: string | undefined, err?: Error): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter?.secret && this.isTTY) this.stream.setRawMode?.(false);
    this.stream.pause();
    if (err) waiter?.reject(err);
    else waiter?.resolve(line);
  }

  private deliver(): void {
    if (!this.waiter) return;
    const at = this.buffer.indexOf('\n');
    if (at >= 0) {
      const line = this.buffer.slice(0, at).replace(/\r$/, '');
      this.buffer = this.buffer.slice(at + 1);
      this.finish(line);
    } else if (this.ended) {
      const rest = this.buffer;
      this.buffer = '';
      this.finish(rest === '' ? undefined : rest);
    }
  }

  /** The next line without its end, or undefined at end of input. */
  read(secret = false): Promise<string | undefined> {
    this.attach();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject, secret };
      if (secret && this.isTTY) this.stream.setRawMode?.(true);
      this.stream.resume();
      if (!(secret && this.isTTY)) this.deliver();
    });
  }

  close(): void {
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    this.stream.off('error', this.onEnd);
    this.stream.pause();
  }

  /**
   * Closes and lets go of the stream: a paused pipe that the other side keeps open still holds the process,
   * so the session that read the last answer ("q") would never exit.
   */
  release(): void {
    this.close();
    this.stream.destroy();
  }
}

/** A question the way rclone's ChooseOption shows it. */
export interface OptionQuestion {
  name: string;
  help: string;
  /** The kind word: "value", "string value", "boolean value (true or false)", … */
  kind: string;
  default: string;
  required?: boolean;
  examples?: Array<{ value: string; help: string }>;
  exclusive?: boolean;
  /** Checks and canonicalises a non-empty answer. */
  parse?: (input: string) => { value: string } | { error: string };
}

const RED = '\x1b[91m';
const GREEN = '\x1b[92m';
const RESET = '\x1b[0m';

export class Terminal {
  constructor(
    readonly input: LineInput,
    private readonly out: Writable,
    private readonly err: Writable,
    /** Colour the numbered lists, as rclone does when stdout is a terminal. */
    private readonly colour: boolean,
  ) {}

  print(text: string): void {
    this.out.write(text);
  }

  println(text = ''): void {
    this.out.write(`${text}\n`);
  }

  /** stderr, where rclone sends logs and password prompts. */
  printErr(text: string): void {
    this.err.write(text);
  }

  async readLine(prompt: string): Promise<string> {
    this.print(prompt);
    const line = await this.input.read();
    if (line === undefined) throw new InputEnded();
    return line.trim();
  }

  /** A letter menu (rclone's CommandDefault); entries are "xText", the result is the letter. */
  async command(commands: string[], defaultIndex = -1): Promise<string> {
    const letters = commands.map((c) => c[0]);
    commands.forEach((c, i) => this.println(`${c[0]}) ${c.slice(1)}${i === defaultIndex ? ' (default)' : ''}`));
    for (;;) {
      const answer = (await this.readLine(`${letters.join('/')}> `)).toLowerCase();
      if (answer.length === 0) {
        if (defaultIndex >= 0) return letters[defaultIndex];
        this.println('This value is required and it has no default.');
      } else if (answer.length === 1) {
        if (letters.includes(answer)) return answer;
        this.println(`This value must be one of the following characters: ${letters.join(', ')}.`);
      } else {
        this.println(`This value must be a single character, one of the following: ${letters.join(', ')}.`);
      }
    }
  }

  async confirm(defaultYes: boolean): Promise<boolean> {
    return (await this.command(['yYes', 'nNo'], defaultYes ? 0 : 1)) === 'y';
  }

  /** A numbered list (rclone's Choose): a number picks an entry; newOk allows one's own value. */
  async choose(what: string, kind: string, values: string[], helps: string[] | undefined, defaultValue: string, required: boolean, newOk: boolean): Promise<string> {
    const description = newOk ? 'your own' : 'an existing';
    this.println(`Choose a number from below, or type in ${description} ${kind}.`);
    if (defaultValue !== '') this.println(`Press Enter for the default (${defaultValue}).`);
    else if (!required) this.println('Press Enter to leave empty.');
    values.forEach((value, i) => {
      const help = helps?.[i] ?? '';
      const lines = help ? [...help.split('\n'), `(${value})`] : [];
      if (this.colour) this.print(i % 2 === 0 ? RED : GREEN);
      if (lines.length === 0) this.println(`${String(i + 1).padStart(2)} > ${value}`);
      else {
        const mid = Math.floor((lines.length - 1) / 2);
        lines.forEach((line, j) => {
          const sep = j === 0 ? '/' : j === lines.length - 1 ? '\\' : '|';
          this.println(`${j === mid ? String(i + 1).padStart(2) : '  '} ${sep} ${line}`);
        });
      }
      if (this.colour) this.print(RESET);
    });
    for (;;) {
      const answer = await this.readLine(`${what}> `);
      if (/^[+-]?\d+$/.test(answer)) {
        const n = Number(answer);
        if (n >= 1 && n <= values.length) return values[n - 1];
        this.println('No choices with this number.');
        continue;
      }
      if (values.includes(answer)) return answer;
      if (answer === '') {
        if (!required) return '';
        if (defaultValue !== '') return defaultValue;
        this.println('This value is required and it has no default.');
      } else if (newOk) return answer;
      else this.println(`This value must match ${description} value.`);
    }
  }

  /** Free entry (rclone's Enter). */
  async enter(what: string, kind: string, defaultValue: string, required: boolean): Promise<string> {
    if (defaultValue !== '') this.println(`Enter a ${kind}. Press Enter for the default (${defaultValue}).`);
    else if (!required) this.println(`Enter a ${kind}. Press Enter to leave empty.`);
    else this.println(`Enter a ${kind}.`);
    for (;;) {
      const answer = await this.readLine(`${what}> `);
      if (!required || answer !== '') return answer;
      if (defaultValue !== '') return defaultValue;
      this.println('This value is required and it has no default.');
    }
  }

  /**
   * rclone's ChooseOption: "Option name.", the help without blank lines, then a list or an entry
   * line. Returns the typed (canonicalised) value; "" means the person pressed Enter on an optional
   * question, which the caller reads as "keep the default".
   */
  async option(q: OptionQuestion): Promise<string> {
    this.println(`Option ${q.name}.`);
    if (q.help) this.println(q.help.trim().replaceAll('\n\n', '\n'));
    for (;;) {
      const answer = q.examples?.length
        ? await this.choose(q.name, q.kind, q.examples.map((e) => e.value), q.examples.map((e) => e.help), q.default, !!q.required, !q.exclusive)
        : await this.enter(q.name, q.kind, q.default, !!q.required);
      if (answer === '' || !q.parse) return answer;
      const parsed = q.parse(answer);
      if ('value' in parsed) return parsed.value;
      this.println(`Failed to parse "${answer}": ${parsed.error}`);
    }
  }

  /** rclone's GetPassword: prompt and "password:" on stderr, no echo on a TTY, retried until usable. */
  async password(prompt: string, check: (password: string) => string | undefined): Promise<string> {
    this.printErr(`${prompt}\n`);
    for (;;) {
      this.printErr('password:');
      const line = await this.input.read(true);
      if (line === undefined) throw new InputEnded();
      if (this.input.isTTY) this.printErr('\n');
      const problem = check(line);
      if (!problem) return line;
      this.printErr(`Bad password: ${problem}\n`);
    }
  }
}

/** rclone's kind word for a question, from the option's type and the default offered. */
export function kindWord(kind: 'string' | 'bool' | 'size' | 'duration' | 'int', defaultValue: string): string {
  if (defaultValue === '') return 'value';
  switch (kind) {
    case 'bool':
      return 'boolean value (true or false)';
    case 'size':
      return 'size with suffix K,M,G,T';
    case 'duration':
      return 'duration s,m,h,d,w,M,y';
    case 'int':
      return 'signed integer';
    default:
      return 'string value';
  }
}
