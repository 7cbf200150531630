import { describe, expect, it } from "vitest";
import { endpoints } from "../src/app";
import { openApiDocument } from "../src/openapi/document";
import { BASE, call, expectError, JSON_TYPE, send, UUID } from "./support/api";

// The Worker serves the document that scripts/build-assets.mjs wrote among the static assets
// (vitest.config.ts runs it before the tests).
describe("GET /openapi.json", () => {
  it("answers the document of today's routes and schemas, not a stale build", async () => {
    const response = await call("/openapi.json");
    expect(response.status).toBe(200);
    expect(await response.json()).toStrictEqual(JSON.parse(JSON.stringify(openApiDocument(endpoints))));
  });

  it("carries the Worker's headers, cacheable for 5 minutes", async () => {
    const response = await call("/openapi.json");
    expect(response.headers.get("Content-Type")).toBe(JSON_TYPE);
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("answers 500 internal_error, not an empty document, when the asset is missing", async () => {
    const ASSETS = { fetch: async () => new Response("Not Found", { status: 404 }) } as unknown as Fetcher;
    await expectError(await send(new Request(`${BASE}/openapi.json`), { ASSETS }), 500, { code: "internal_error" });
  });
});
