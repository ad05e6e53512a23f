// Types of bin/cli-bundle.mjs (plain JavaScript: it runs before tsx is loaded).
export declare const BUNDLE_DIR: string;
export declare const BUNDLE_INPUTS: string;
export declare const BUNDLE_WORKERS: readonly { name: string; source: string }[];
export declare function freshCliBundle(root: string): string | undefined;
