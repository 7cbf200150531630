import { jsonResponse } from "../../http/json";
import { DOCS_HTML, openApiDocument } from "../../http/openapi";
import { endpoint, type Endpoint } from "../../http/route";
import * as routes from "./meta.routes";

const HEALTHY = JSON.stringify({ status: "ok" });
const PUBLIC_CACHE = { "Cache-Control": "public, max-age=300" };

/** Health, the OpenAPI document of `documented` (built once per isolate, on first request) and docs. */
export function metaEndpoints(documented: () => readonly Endpoint[]): Endpoint[] {
  let document: string | undefined;
  return [
    endpoint(routes.health, (c) => jsonResponse(c, 200, HEALTHY)),
    endpoint(routes.openApi, (c) => jsonResponse(c, 200, (document ??= JSON.stringify(openApiDocument(documented()))), PUBLIC_CACHE)),
    endpoint(routes.docs, (c) => c.html(DOCS_HTML, 200, PUBLIC_CACHE)),
  ];
}
