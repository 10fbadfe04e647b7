// The path gate (src/paths/gate.ts) as the intake runs it for every source, and what its refusals write to the log:
// a sender's request with a refused path is refused whole (PathRefused, a 400) with one WARN, at most one a minute
// per client (a script looping on a bad path, or someone probing the gate, writes one line a minute); Drive's
// refused files are left out, each with its WARN, and the rest go on.
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { PerClientLog, unwrittenTail } from '../log/per-client.js';
import { gateRequests, PathRefused, preview, type Refusal } from '../paths/gate.js';
import type { PathMappings } from '../paths/mapping.js';
import type { ScanRequest } from '../request.js';

export class IntakeGate {
  private readonly refusedLines: PerClientLog;

  constructor(
    private readonly logger: Logger,
    clock: Clock,
  ) {
    this.refusedLines = new PerClientLog(clock);
  }

  /** The requests that pass (paths resolved); with `whole`, any refusal throws PathRefused instead. */
  pass(requests: ScanRequest[], mappings: PathMappings, client: string, whole: boolean): ScanRequest[] {
    const { passed, refused } = gateRequests(requests, mappings);
    const fields = (r: Refusal) => ({ client, source: r.request.source, event: r.request.event, path: preview(String(r.request.path)), rule: r.rule });
    if (refused.length > 0 && whole) {
      const err = new PathRefused(refused);
      const more = this.refusedLines.due(client);
      const { source, event } = refused[0].request;
      if (more !== undefined) this.logger.warn({ ...fields(refused[0]), suppressed: more }, `Refused a ${source} ${event} request from '${client}': ${err.message}. Nothing of it was queued${unwrittenTail(more)}`);
      throw err;
    }
    for (const r of refused) this.logger.warn(fields(r), `Refused a ${r.request.source} ${r.request.event} request from '${client}': ${r.message}. Nothing was queued for it.`);
    return passed;
  }
}
