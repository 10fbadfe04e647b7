// The module hooks of record-loads.mjs (they run on Node's hooks thread, which sees the same environment).
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.LOADS_RECORD && url.startsWith('file:')) appendFileSync(process.env.LOADS_RECORD, `${url}\n`);
  return nextLoad(url, context);
}
