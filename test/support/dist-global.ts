// Vitest global setup: dist/scanrelay.mjs current before any test starts the CLI (test/support/dist.ts), built once
// here rather than by each worker.
import { ensureDist } from './dist.js';

export default function setup(): void {
  ensureDist();
}
