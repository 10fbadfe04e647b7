// The table of target kinds: every TARGETS TYPE and the module that makes it. A new kind is its module and one
// line here (docs/architecture.md); the TYPE names, the entry keys, the required-key messages and the build follow.
import { audiobookshelf } from './audiobookshelf.js';
import { radarr, sonarr } from './arr.js';
import { command } from './command.js';
import { emby } from './emby.js';
import { jellyfin } from './jellyfin.js';
import type { TargetKind } from './kind.js';
import { plexScanner } from './plex-scanner.js';
import { plex } from './plex.js';
import { relay } from './relay.js';
import { tdarr } from './tdarr.js';

export const targetKinds = {
  plex,
  'plex-scanner': plexScanner,
  jellyfin,
  emby,
  command,
  audiobookshelf,
  tdarr,
  sonarr,
  radarr,
  relay,
} as const;

export type TargetType = keyof typeof targetKinds;

export const TARGET_TYPES = Object.keys(targetKinds) as [TargetType, ...TargetType[]];

/** Any kind of the table, its keys forgotten (the schema has checked the entry against them). */
export function kindOf(type: string): TargetKind | undefined {
  return (targetKinds as unknown as Record<string, TargetKind | undefined>)[type];
}
