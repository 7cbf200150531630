// `npm run bench:pool-proxy`: a regression check on the test pool. A Worker that answers "ok", called
// 500 times in one test file through the pool's `exports.default.fetch` and through its own fetch.
// Under @cloudflare/vitest-pool-workers the pooled time per 100 calls grew with the calls made so far
// (a Proxy chain per call); under @cloudflare/vitest-plugin it stays flat, and the check fails if
// it grows again. Figures in BENCHMARKS.md.
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      main: "./bench/pool-proxy/worker.ts",
      wrangler: { configPath: "./bench/pool-proxy/wrangler.toml" },
    }),
  ],
  test: { include: ["bench/pool-proxy/calls.ts"], silent: false },
});
