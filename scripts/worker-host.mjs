// usage: node scripts/worker-host.mjs <config> <port> <persist-dir> [NAME=value ...]
// Serves one Worker through wrangler's API without the dev inspector proxy, which costs more CPU than a
// bare request (BENCHMARKS.md); console output on stdout, only lines with WORKER_HOST_KEEP's text if set.
import { join } from "node:path";
import { unstable_startWorker } from "wrangler";

const keep = process.env.WORKER_HOST_KEEP;
if (keep) {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => (String(chunk).includes(keep) ? write(chunk, ...rest) : true);
}

const [config, port, persist, ...vars] = process.argv.slice(2);
const bindings = Object.fromEntries(
  vars.map((pair) => [
    pair.slice(0, pair.indexOf("=")),
    { type: "plain_text", value: pair.slice(pair.indexOf("=") + 1) },
  ]),
);

const dev = {
  inspector: false,
  watch: false,
  liveReload: false,
  persist,
  logLevel: process.env.WORKER_HOST_LOG_LEVEL ?? "log",
  // A registry of this host's own, through which the Worker's service bindings reach its companions.
  registry: join(persist, "registry"),
};
// WORKER_HOST_COMPANIONS (JSON configs): its service bindings' Workers, each with its own port and state.
const workers = [];
for (const [i, companion] of JSON.parse(process.env.WORKER_HOST_COMPANIONS ?? "[]").entries()) {
  const own = { persist: join(persist, `companion-${i}`), server: { hostname: "127.0.0.1", port: 0 } };
  workers.push(await unstable_startWorker({ config: companion, dev: { ...dev, ...own } }));
  await workers.at(-1).ready;
}
const worker = await unstable_startWorker({
  config,
  bindings,
  dev: { ...dev, server: { hostname: "127.0.0.1", port: Number(port) } },
});
workers.push(worker);
await worker.ready;
const disposeAll = () => Promise.all(workers.map((w) => w.dispose()));
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => disposeAll().finally(() => process.exit(0)));
