import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call, UUID } from "./support/api";

// What /docs needs besides the Worker comes from the static assets, which the Worker's fetch does
// not reach: they are read through env.ASSETS, as the asset layer serves them. The browser test
// (test/browser/docs.browser.mjs) loads the page itself in Chromium.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const scriptsOf = (html: string) =>
  [...html.matchAll(/<script\b([^>]*)>/g)].map(([, attributes]) => attributes!.match(/\bsrc="([^"]*)"/)?.[1]);

describe("GET /docs", () => {
  it("is HTML with a strict Content-Security-Policy: scripts of this origin only, never framed", async () => {
    const response = await call("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/html; charset=UTF-8");
    expect(response.headers.get("Content-Security-Policy")).toBe(CSP);
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=300");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("X-Request-Id")).toMatch(UUID);
  });

  it("names no other host and runs no inline script", async () => {
    const html = await (await call("/docs")).text();
    expect(html).not.toMatch(/\/\/|\bsrc="(?!\/)|\bhref="(?!\/)/);
    expect(scriptsOf(html)).toStrictEqual(["/docs/init.js", "/docs/scalar-standalone.js"]);
  });

  it("says in plain text where the document is, for a browser without JavaScript", async () => {
    const html = await (await call("/docs")).text();
    expect(html).toMatch(/<p id="docs-fallback">[^<]*<a href="\/openapi.json">\/openapi.json<\/a>/);
  });

  it("loads scripts that the static assets serve as JavaScript", async () => {
    for (const src of scriptsOf(await (await call("/docs")).text())) {
      const asset = await env.ASSETS.fetch(BASE + src!);
      expect({ src, status: asset.status }).toStrictEqual({ src, status: 200 });
      expect(asset.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
      expect(asset.headers.get("X-Content-Type-Options")).toBe("nosniff"); // assets/_headers
      expect((await asset.text()).length).toBeGreaterThan(0);
    }
  });
});

describe("GET /favicon.ico", () => {
  it("is a static asset, so the browser's request for it does not fail", async () => {
    const response = await env.ASSETS.fetch(`${BASE}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("image/vnd.microsoft.icon");
    const icoHeader = new Uint8Array([0, 0, 1, 0]);
    expect(new Uint8Array(await response.arrayBuffer()).subarray(0, 4)).toStrictEqual(icoHeader);
  });
});
