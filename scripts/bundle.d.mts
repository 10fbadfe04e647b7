import type { BuildOptions } from 'esbuild';
/** The options of the relay's bundle (scripts/bundle.mjs). */
export declare const bundleOptions: BuildOptions;
