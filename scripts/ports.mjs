// Free loopback ports for the Workers and receivers that the scripts, the bench and the dev-server
// tests start: another server on a Worker's port would answer its readiness check in its stead.
import { createServer } from "node:net";

const HOST = "127.0.0.1";

/** Where a local Worker's inspector listens: its port + this (`npm run dev`, the scripts, the tests). */
export const INSPECTOR_OFFSET = 1000;

/** Whether nothing listens on 127.0.0.1:`port`. */
export const isFree = (port) =>
  new Promise((resolve) => {
    const server = createServer().once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });

/** A port the system has free now. */
export const anyFreePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** The first port from `from` (span ports) with every `port + offset` free; `variable` moves `from`. */
export async function firstFreePorts(from, offsets, variable, span = 50) {
  for (let port = from; port < from + span; port++) {
    if ((await Promise.all(offsets.map((offset) => isFree(port + offset)))).every(Boolean)) return port;
  }
  throw new Error(`no free ports from ${from} to ${from + span - 1}; set ${variable}`);
}
