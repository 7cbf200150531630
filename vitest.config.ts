import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { buildAssets } from "./scripts/build-assets.mjs";
import { contractFields } from "./test/contract-fields.mjs";

// The pool reads wrangler.toml but runs no [build] command: the generated assets (the OpenAPI
// document, Scalar's bundle), fresh, before the tests reach them through env.ASSETS.
await buildAssets();

export default defineConfig(async () => ({
  plugins: [
    cloudflareTest({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations("./drizzle"),
          JWT_SECRET: "test-secret",
          // The field lists of the interface document and CONTRACT.md (the steering repo's shared/).
          CONTRACT_FIELDS: contractFields("../shared"),
        },
      },
    }),
  ],
  test: {
    setupFiles: ["./test/apply-migrations.ts"],
    // Each request logs a line; show them only for failing tests.
    silent: "passed-only" as const,
  },
}));
