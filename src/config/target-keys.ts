// Which TARGETS keys each target type cannot do without, with the message that names what to write.
import type { z } from 'zod';

/** Types that authenticate with TOKEN and refuse to start without one. */
const TOKEN_TYPES = new Set(['plex', 'jellyfin', 'emby', 'audiobookshelf', 'sonarr', 'radarr']);

interface EntryKeys {
  TYPE: string;
  URL?: string;
  TOKEN?: string;
  LIBRARY_ID?: string;
  COMMAND?: string[];
  USER?: string;
  PASSWORD?: string;
}

export function requiredTargetKeys(t: EntryKeys, ctx: z.RefinementCtx): void {
  if (t.TYPE === 'plex-scanner') return;
  if (t.TYPE === 'command') {
    if (!t.COMMAND?.length) ctx.addIssue({ code: 'custom', path: ['COMMAND'], message: 'the program to run and its arguments, e.g. ["/usr/local/bin/notify", "--quiet"]' });
    return;
  }
  const required: ('URL' | 'TOKEN' | 'LIBRARY_ID')[] = TOKEN_TYPES.has(t.TYPE) ? ['URL', 'TOKEN'] : t.TYPE === 'tdarr' ? ['URL', 'LIBRARY_ID'] : ['URL'];
  for (const key of required) {
    if (!t[key]) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: key === 'URL' ? `an http:// or https:// URL for a ${t.TYPE} target` : key === 'TOKEN' ? `the ${t.TYPE} API token` : "the Tdarr library's id (dbID)",
      });
    }
  }
  if (t.TYPE === 'relay' && !!t.USER !== !!t.PASSWORD) {
    ctx.addIssue({ code: 'custom', path: [t.USER ? 'PASSWORD' : 'USER'], message: 'both USER and PASSWORD (Basic auth), or neither' });
  }
}
