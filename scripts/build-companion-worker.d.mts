export declare const DOCUMENTS_WORKER: { name: string; main: string; compatibilityDate: string };
export declare function buildDocumentsWorker(): Promise<string>;
