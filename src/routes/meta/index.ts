import { replyHtml, replyText } from "../../http/reply";
import { endpoint, type Endpoint } from "../../http/route";
import { openApiDocument } from "../../openapi/document";
import { DOCS_HTML } from "../../openapi/docs-page";
import * as routes from "./meta.routes";

const PUBLIC_CACHE = "public, max-age=300";
const HEALTHY = JSON.stringify({ status: "ok" });

/** Health, the OpenAPI document of `documented` (built once per isolate, on first request) and docs. */
export function metaEndpoints(documented: () => readonly Endpoint[]): Endpoint[] {
  let document: string | undefined;
  return [
    endpoint(routes.health, (c) => replyText(c, 200, HEALTHY)),
    endpoint(routes.openApi, (c) => {
      c.header("Cache-Control", PUBLIC_CACHE);
      return replyText(c, 200, (document ??= JSON.stringify(openApiDocument(documented()))));
    }),
    endpoint(routes.docs, (c) => {
      c.header("Cache-Control", PUBLIC_CACHE);
      return replyHtml(c, 200, DOCS_HTML);
    }),
  ];
}
