// Waiting on the real clock for something another thread, process or socket does, polling a condition.

export interface UntilOptions {
  /** How long to wait before failing (default 10 s). */
  ms?: number;
  /** How long to pause between checks (default 5 ms). */
  every?: number;
  /** Said in the error when time runs out, e.g. what was awaited and what was seen instead. */
  what?: string | (() => string);
}

/** Resolves once `check` holds (checked at once, then every `every` ms); throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, opts: UntilOptions = {}): Promise<void> {
  const { ms = 10_000, every = 5, what } = opts;
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) {
      const said = typeof what === 'function' ? what() : what;
      throw new Error(`condition not met in ${ms} ms${said ? `: ${said}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, every));
  }
}
