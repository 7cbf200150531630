import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { reply, replyHtml, replyText } from "../../http/reply";
import { endpoint, type Endpoint } from "../../http/route";
import { DOCS_HTML } from "../../openapi/docs-page";
import * as routes from "./meta.routes";

const HEALTHY = JSON.stringify({ status: "ok" });

/**
 * The OpenAPI document, built with the Worker rather than in it (scripts/build-assets.mjs: zod's JSON
 * Schema converter stays out of the bundle) and deployed among the static assets under its own path,
 * which wrangler.toml's run_worker_first routes here, so that it gets this Worker's headers.
 */
async function openApiText(c: Context<AppEnv>): Promise<string> {
  const asset = await c.env.ASSETS.fetch(new URL(routes.openApi.path, c.req.url));
  if (!asset.ok)
    throw new Error(
      `${routes.openApi.path} is not among the static assets (${asset.status}): run npm run build:assets`,
    );
  return asset.text();
}

const setHeaders = (c: Context, headers: Record<string, string>) =>
  Object.entries(headers).forEach(([name, value]) => c.header(name, value));

/** Health, the OpenAPI document and its interactive reference, and `/` naming the last two. */
export const metaEndpoints: Endpoint[] = [
  endpoint(routes.index, (c) =>
    reply(c, 200, {
      links: { docs: new URL(routes.docs.path, c.req.url).href, openapi: new URL(routes.openApi.path, c.req.url).href },
    }),
  ),
  endpoint(routes.health, (c) => replyText(c, 200, HEALTHY)),
  endpoint(routes.openApi, async (c) => {
    const document = await openApiText(c);
    setHeaders(c, routes.openApi.success.headers);
    return replyText(c, 200, document);
  }),
  endpoint(routes.docs, (c) => {
    setHeaders(c, routes.docs.success.headers);
    return replyHtml(c, 200, DOCS_HTML);
  }),
];
