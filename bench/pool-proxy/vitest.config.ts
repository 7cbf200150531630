// `npm run bench:pool-proxy`: the minimal reproduction of why the tests call the Worker through
// send() (test/support/api.ts) and not `exports.default.fetch`. A Worker that answers "ok", called
// 500 times in one test file: through the pool the time per 100 calls grows with the calls made so
// far, through the Worker's own fetch it stays flat. The cause and the versions affected are in
// send()'s comment.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ main: "./bench/pool-proxy/worker.ts", wrangler: { configPath: "./bench/pool-proxy/wrangler.toml" } })],
  test: { include: ["bench/pool-proxy/calls.ts"], silent: false },
});
