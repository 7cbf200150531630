/// <reference types="vite/client" />

/** The exports of every routes folder's `.docs.ts`, as openApiDocument() takes them (found by Vite's glob). */
export const ROUTE_DOC_MODULES: Record<string, unknown>[] = Object.values(
  import.meta.glob<Record<string, unknown>>("../../src/routes/*/*.docs.ts", { eager: true }),
);
