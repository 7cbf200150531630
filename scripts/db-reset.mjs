// `npm run db:reset`: deletes .wrangler/state and applies the migrations again; refuses while
// `npm run dev` runs here (scripts/dev-lock.mjs), whose open files would answer 503 after it.
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
