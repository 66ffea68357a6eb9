// Types of scripts/build.mjs for the TypeScript that imports it (the Dockerfile test).
export declare const STAMP_FILE: string;
export declare const SERVER_PACKAGES: readonly { src: string; out: string; skip?: string[]; only?: string[] }[];
export declare const BROWSER_ENTRIES: readonly string[];
export declare function sourceStamp(): Promise<string>;
export declare function isUpToDate(stamp: string): Promise<boolean>;
/** Builds everything; resolves to the milliseconds it took. */
export declare function build(): Promise<number>;
