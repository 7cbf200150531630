/** A companion Worker bundled for the tests (build-companion-worker.mjs). */
export interface CompanionWorker {
  name: string;
  main: string;
  compatibilityDate: string;
  scriptPath: string;
}

export function buildCompanionWorker(configFile: string): Promise<CompanionWorker>;
