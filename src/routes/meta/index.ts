import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { replyHtml, replyText } from "../../http/reply";
import { endpoint, type Endpoint } from "../../http/route";
import { DOCS_CSP, DOCS_HTML } from "../../openapi/docs-page";
import * as routes from "./meta.routes";

const PUBLIC_CACHE = "public, max-age=300";
const HEALTHY = JSON.stringify({ status: "ok" });

/**
 * The OpenAPI document, built with the Worker rather than in it (scripts/build-assets.mjs: zod's JSON
 * Schema converter stays out of the bundle) and deployed among the static assets under its own path,
 * which wrangler.toml's run_worker_first routes here, so that it gets this Worker's headers.
 */
async function openApiText(c: Context<AppEnv>): Promise<string> {
  const asset = await c.env.ASSETS.fetch(new URL(routes.openApi.path, c.req.url));
  if (!asset.ok) throw new Error(`${routes.openApi.path} is not among the static assets (${asset.status}): run npm run build:assets`);
  return asset.text();
}

/** Health, the OpenAPI document and its interactive reference. */
export const metaEndpoints: Endpoint[] = [
  endpoint(routes.health, (c) => replyText(c, 200, HEALTHY)),
  endpoint(routes.openApi, async (c) => {
    const document = await openApiText(c);
    c.header("Cache-Control", PUBLIC_CACHE);
    return replyText(c, 200, document);
  }),
  endpoint(routes.docs, (c) => {
    c.header("Cache-Control", PUBLIC_CACHE);
    c.header("Content-Security-Policy", DOCS_CSP);
    return replyHtml(c, 200, DOCS_HTML);
  }),
];
