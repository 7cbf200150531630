// The SQL the service sends for a page of a card-order list, read off the service's own query code:
// src/db/card-orders.ts is bundled as it is and its compiled list reads are asked for their SQL.
// run.mjs compares the result with the raw-d1 baseline's SQL before measuring.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const require = createRequire(join(ROOT, "package.json"));

/** @returns {Promise<string[]>} the statements of the list batch (page, total), in order */
export async function serviceListSql() {
  const { build } = require("esbuild");
  // Inside the project, so that the bundle's imports of drizzle-orm resolve to node_modules.
  mkdirSync(join(ROOT, ".wrangler/generated"), { recursive: true });
  const dir = mkdtempSync(join(ROOT, ".wrangler/generated/bench-sql-"));
  try {
    const outfile = join(dir, "card-orders.mjs");
    await build({ entryPoints: [join(ROOT, "src/db/card-orders.ts")], bundle: true, format: "esm", platform: "node", packages: "external", outfile, logLevel: "error", absWorkingDir: ROOT });
    const { cardOrderListReads } = await import(outfile);
    const { page, total } = cardOrderListReads.all();
    return [page.sql, total.sql];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
