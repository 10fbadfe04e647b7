// The table of target kinds: every TARGETS TYPE and the module that makes it. A new kind is its module and one
// line here (docs/architecture.md); the TYPE names, the entry keys, the required-key messages and the build follow.
import type * as z from 'zod/mini';
import { audiobookshelf } from './audiobookshelf.js';
import { radarr, sonarr } from './arr.js';
import { command } from './command.js';
import { emby } from './emby.js';
import { jellyfin } from './jellyfin.js';
import type { KindContext, TargetKind } from './kind.js';
import type { PlexContext } from './plex/context.js';
import { plexScanner } from './plex/scanner-target.js';
import { plex } from './plex/target.js';
import { relay } from './relay.js';
import { tdarr } from './tdarr.js';

/** The Plex kinds: built with Plex's own context (plex/context.ts); the first Plex, of the PLEX_* keys, is one. */
const plexKinds = { plex, 'plex-scanner': plexScanner } as const;

export const targetKinds = {
  ...plexKinds,
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

/** A kind with its keys forgotten (the schema has checked the entry against them). */
type AnyKind<Context extends KindContext> = TargetKind<z.core.$ZodShape, Context>;

/** Any kind of the table, as the config's schema reads it: its keys, required keys and rules. */
export function kindOf(type: string): Omit<AnyKind<KindContext>, 'build'> | undefined {
  return (targetKinds as Record<string, Omit<AnyKind<KindContext>, 'build'> | undefined>)[type];
}

/** How a kind's target is built: a Plex kind with Plex's own context, any other with the one every kind gets. */
export type KindBuild = { plex: true; build: AnyKind<PlexContext>['build'] } | { plex: false; build: AnyKind<KindContext>['build'] };

export function buildOf(type: string): KindBuild | undefined {
  const plexKind = (plexKinds as unknown as Record<string, AnyKind<PlexContext> | undefined>)[type];
  if (plexKind) return { plex: true, build: plexKind.build };
  const kind = (targetKinds as unknown as Record<string, AnyKind<KindContext> | undefined>)[type];
  return kind && { plex: false, build: kind.build };
}
