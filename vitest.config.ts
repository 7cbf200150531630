import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { configDefaults, defineConfig } from "vitest/config";
import { contractFields } from "./test/contract-fields.mjs";

export default defineConfig(async () => ({
  plugins: [
    cloudflareTest({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations("./drizzle"),
          JWT_SECRET: "test-secret",
          APP_SECRET: "test-app-secret",
          // Failed deliveries are retried at once, so that a test sees the dead-letter queue in seconds.
          WEBHOOK_RETRY_BASE_SECONDS: "0",
          // The field lists of the interface document and CONTRACT.md (the steering repo's shared/).
          CONTRACT_FIELDS: contractFields("../shared"),
        },
      },
    }),
  ],
  test: {
    setupFiles: ["./test/apply-migrations.ts"],
    // Those start `wrangler dev` themselves and run under node --test (npm run test:dev).
    exclude: [...configDefaults.exclude, "test/dev-server/**"],
    // Each request logs a line; show them only for failing tests.
    silent: "passed-only" as const,
  },
}));
