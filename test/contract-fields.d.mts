export declare function contractFields(shared: string): Record<string, string[]>;
