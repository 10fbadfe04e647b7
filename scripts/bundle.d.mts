import type { BuildOptions } from 'esbuild';
/** The options of the relay's bundle (scripts/bundle.mjs). */
export declare const bundleOptions: BuildOptions;
/** What a build into `outdir` removes first: dist/ whole, another folder its chunks/ (scripts/bundle.mjs). */
export function clearedBefore(outdir: string): string;
