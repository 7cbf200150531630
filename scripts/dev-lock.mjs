// Whether `npm run dev` runs here: .wrangler/dev-server.json (pid, URL) while it runs; a file whose
// process is gone counts as none.
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
