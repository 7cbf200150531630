// Whether `npm run dev` runs in this directory: scripts/dev.mjs writes .wrangler/dev-server.json (its
// pid and URL) while it runs and takes it away when it ends; a file whose process is gone (a dev server
// killed with SIGKILL, a crash) counts as none. `npm run db:reset` refuses while one runs: the
// running Workers keep the old database files open, and every request after a reset answered 503.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const LOCK = ".wrangler/dev-server.json";

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM"; // alive, someone else's
  }
};

/** The running dev server of this directory, `{ pid, url }`, or undefined. */
export function runningDevServer() {
  let lock;
  try {
    lock = JSON.parse(readFileSync(LOCK, "utf8"));
  } catch {
    return undefined;
  }
  return Number.isInteger(lock?.pid) && alive(lock.pid) ? lock : undefined;
}

/** Marks this process as the directory's dev server until it exits. */
export function holdDevLock(url) {
  mkdirSync(dirname(LOCK), { recursive: true });
  writeFileSync(LOCK, `${JSON.stringify({ pid: process.pid, url })}\n`);
  process.on("exit", () => {
    if (runningDevServer()?.pid === process.pid) rmSync(LOCK, { force: true });
  });
}
