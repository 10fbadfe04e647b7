// Whether the service has finished starting: the queue is open and every target has been probed once.
// `/health?ready` answers 503 until then, so an orchestrator sends no traffic to a half-started instance.
import type { Logger } from '../log/logger.js';
import type { Target } from '../scan.js';

/** A target that does not answer its first probe within this counts as probed (and down) all the same. */
const FIRST_PROBE_LIMIT_MS = 30_000;

export interface ReadinessState {
  ready: boolean;
  /** What is still awaited: "queue", "target <name>". */
  waitingFor: string[];
  /** Each target's first probe: reachable, or why not. */
  targets: { name: string; ok: boolean; error?: string }[];
}

export class Readiness {
  private queueOpen = false;
  private readonly probes = new Map<string, { ok: boolean; error?: string }>();

  constructor(private readonly targetNames: string[]) {}

  /** The queue file is open and readable (the service calls this when it starts listening). */
  queueOpened(): void {
    this.queueOpen = true;
  }

  targetProbed(name: string, result: { ok: boolean; error?: string }): void {
    if (!this.probes.has(name)) this.probes.set(name, result);
  }

  state(): ReadinessState {
    const waitingFor = [
      ...(this.queueOpen ? [] : ['queue']),
      ...this.targetNames.filter((n) => !this.probes.has(n)).map((n) => `target ${n}`),
    ];
    return {
      ready: waitingFor.length === 0,
      waitingFor,
      targets: [...this.probes].map(([name, r]) => ({ name, ...r })),
    };
  }

  /**
   * Probes every target once, all at once, and records each answer; the service hands each answer to the
   * processor too, so a failed first probe shows the target down on /health at once, with no second probe.
   */
  async probeTargets(
    targets: Target[],
    logger: Logger,
    limitMs = FIRST_PROBE_LIMIT_MS,
    /** Each answer as it comes: the processor takes it as its own first probe, so /health agrees with the log. */
    onResult?: (name: string, result: { ok: true } | { ok: false; error: string }) => void,
  ): Promise<void> {
    await Promise.all(
      targets.map(async (target) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<{ ok: false; error: string }>((resolve) => {
          timer = setTimeout(() => resolve({ ok: false, error: `no answer within ${Math.round(limitMs / 1000)} s` }), limitMs);
          timer.unref();
        });
        let result: { ok: true } | { ok: false; error: string };
        try {
          result = await Promise.race([target.available(), late]);
        } catch (err) {
          result = { ok: false, error: String(err) };
        } finally {
          clearTimeout(timer);
        }
        // With onResult, the processor takes the answer and says the target is unavailable: one line, not two.
        if (!result.ok && !onResult) {
          logger.warn({ target: target.name }, `First probe of ${target.name} failed: ${result.error}. Its scans wait in the queue until it answers.`);
        }
        this.targetProbed(target.name, result);
        onResult?.(target.name, result);
      }),
    );
  }
}
