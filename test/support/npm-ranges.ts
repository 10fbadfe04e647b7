// npm's version ranges, read as npm reads a package's engines (semver, through npm-install-checks). semver is a
// dependency of Fastify's, so it is resolved from Fastify's folder rather than hoped for in node_modules' top.
import { createRequire } from 'node:module';

const semver = createRequire(createRequire(import.meta.url).resolve('fastify'))('semver') as {
  satisfies(version: string, range: string, options: { includePrerelease: boolean }): boolean;
  minVersion(range: string): { major: number } | null;
};

/** True when npm finds `version` within an engines `range` (it counts prereleases in). */
export const withinEngines = (version: string, range: string): boolean => semver.satisfies(version, range, { includePrerelease: true });

/** The major of the lowest version a range takes (`^20.19.43` → 20). */
export const lowestMajor = (range: string): number | undefined => semver.minVersion(range)?.major;
