// `npm run bench:pool-proxy`: the minimal reproduction of why the tests call the Worker through
// send() (test/support/api.ts) and not `exports.default.fetch`. A Worker that answers "ok", called
// 500 times in one test file; the time per 100 calls grows with the calls made so far, because
// @cloudflare/vitest-pool-workers wraps its entrypoint class's prototype in one more Proxy on every
// request (createProxyPrototypeClass in dist/worker/lib/cloudflare/test-internal.mjs: since 0.4.0,
// still in 0.23.0, the newest that runs on Node 20). @cloudflare/vitest-plugin 1.1.3 installs the
// Proxy once, but it needs wrangler 4.128, which refuses Node 20. The same calls through the
// Worker's own fetch stay flat.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ main: "./bench/pool-proxy/worker.ts", wrangler: { configPath: "./bench/pool-proxy/wrangler.toml" } })],
  test: { include: ["bench/pool-proxy/calls.ts"], silent: false },
});
