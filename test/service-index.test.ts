import { describe, expect, it } from "vitest";
import { BASE, call, expectError, expectJson, send } from "./support/api";

// GET / (docs/api.md part 5, "Service endpoints"): a new user's first request, from a browser or curl,
// names the reference instead of a bare 404.
describe("GET /", () => {
  it("answers, without a token, the links to /docs and /openapi.json on the host asked", async () => {
    const response = await call("/");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    await expectJson(response, 200, { links: { docs: `${BASE}/docs`, openapi: `${BASE}/openapi.json` } });
    await expectJson(await send(new Request("http://127.0.0.1:8787/")), 200, {
      links: { docs: "http://127.0.0.1:8787/docs", openapi: "http://127.0.0.1:8787/openapi.json" },
    });
  });

  it("names links that answer", async () => {
    const { links } = await (await call("/")).json<{ links: { docs: string; openapi: string } }>();
    const docs = await call(new URL(links.docs).pathname);
    expect([docs.status, docs.headers.get("Content-Type")]).toStrictEqual([200, "text/html; charset=UTF-8"]);
    const openapi = await call(new URL(links.openapi).pathname);
    expect(openapi.status).toBe(200);
    expect((await openapi.json<{ paths: Record<string, unknown> }>()).paths["/"]).toHaveProperty("get");
  });

  it("is the only method of / (405 for the others)", async () => {
    const response = await call("/", { method: "POST", json: {} });
    expect(response.headers.get("Allow")).toBe("GET, HEAD");
    await expectError(response, 405, { code: "method_not_allowed" });
  });
});
