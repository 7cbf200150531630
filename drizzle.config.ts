import { defineConfig } from "drizzle-kit";

// Generates SQL migrations only; they are applied by `wrangler d1 migrations apply`.
export default defineConfig({
  dialect: "sqlite",
  // The tables: db/schema.ts, and the resources' own files it does not re-export (src/schemas/).
  schema: ["./src/db/schema.ts", "./src/schemas/*.ts"],
  out: "./drizzle",
});
