export declare function buildAssets(): Promise<void>;
