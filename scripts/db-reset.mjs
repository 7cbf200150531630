// `npm run db:reset`: a fresh local database for `npm run dev`. Deletes wrangler's local state
// (.wrangler/state: D1, and the queues', rate limiter's and cache's data with it) and applies the
// migrations again (one line; wrangler's output only when they fail). Stop `npm run dev` first: a
// running dev server keeps the old files open.
import { rmSync } from "node:fs";
import { applyLocalMigrations } from "./wrangler.mjs";

rmSync(".wrangler/state", { recursive: true, force: true });
applyLocalMigrations();
