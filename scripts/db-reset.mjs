// `npm run db:reset`: a fresh local database for `npm run dev`. Deletes wrangler's local state
// (.wrangler/state: D1, and the queues', rate limiter's and cache's data with it) and applies the
// migrations again (one line; wrangler's output only when they fail). It refuses (exit 1, nothing
// deleted) while `npm run dev` runs here (scripts/dev-lock.mjs): a running dev server keeps the old
// files open and answers every request after the reset with 503.
import { rmSync } from "node:fs";
import { runningDevServer } from "./dev-lock.mjs";
import { applyLocalMigrations } from "./wrangler.mjs";

const dev = runningDevServer();
if (dev) {
  console.error(
    `npm run db:reset: npm run dev is running (pid ${dev.pid}, ${dev.url}): stop it first (Ctrl-C), then reset. ` +
      "Nothing was deleted.",
  );
  process.exit(1);
}

rmSync(".wrangler/state", { recursive: true, force: true });
applyLocalMigrations();
