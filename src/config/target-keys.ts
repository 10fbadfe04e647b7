// Which TARGETS keys an entry cannot do without, as its kind declares them (src/targets/kinds.ts), with the message
// that names what to write.
import type * as z from 'zod/mini';
import type { Entry } from '../targets/kind.js';
import { kindOf } from '../targets/kinds.js';

export function requiredTargetKeys(entry: Entry, ctx: z.core.$RefinementCtx): void {
  const kind = kindOf(entry.TYPE);
  if (!kind) return;
  for (const [key, expected] of Object.entries(kind.requires)) {
    const value = (entry as Record<string, unknown>)[key];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
      ctx.addIssue({ code: 'custom', path: [key], message: expected });
    }
  }
  kind.refine?.(entry, ctx);
}
