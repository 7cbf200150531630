import type { RouteDocs } from "../../http/route";

/** The prose of meta.routes.ts in the OpenAPI document, by operationId. */
export const metaDocs: Record<string, RouteDocs> = {
  serviceIndex: {
    summary: "Where the reference is",
    description: "Links to the interactive reference (/docs) and this document (/openapi.json); no token needed.",
    success: "The links, absolute URLs on the host the request named.",
  },
  health: {
    tag: "Public, without a token: liveness, this document and its interactive reference.",
    summary: "Liveness: the Worker answers (no database call)",
    description: "Answers 200 while the Worker runs; it touches no database and needs no token.",
    success: "Alive.",
  },
  openApi: {
    summary: "This OpenAPI 3.1 document",
    description: "The document, built from the same route specs and schemas that the Worker validates with.",
    success: "The document.",
  },
  docs: {
    summary: "Interactive API reference",
    description: "An HTML page that renders /openapi.json.",
    success: "An HTML page.",
  },
};
