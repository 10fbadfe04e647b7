// Types of scripts/sqlite-node20.mjs for the tests.
export declare const NODE20_SQLITE: string;
export declare function needsNode20Sqlite(napi?: number): boolean;
export declare function installNode20Sqlite(): number;
