// Prometheus's own linter (Debian's prometheus package), which the metrics test runs over /metrics. A machine
// without it fails that test with what to install instead of skipping it.
import { existsSync } from 'node:fs';

export const PROMTOOL = '/usr/bin/promtool';

/** The linter's path, or an error naming the package to install (.ci/run installs it). */
export function promtoolPath(): string {
  if (!existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} is missing: install Debian's prometheus package (apt-get install prometheus; .ci/run does)`);
  return PROMTOOL;
}
