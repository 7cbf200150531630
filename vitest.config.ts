import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => ({
  plugins: [
    cloudflareTest({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { TEST_MIGRATIONS: await readD1Migrations("./drizzle"), JWT_SECRET: "test-secret" },
      },
    }),
  ],
  test: {
    setupFiles: ["./test/apply-migrations.ts"],
    // Each request logs a line; show them only for failing tests.
    silent: "passed-only" as const,
  },
}));
