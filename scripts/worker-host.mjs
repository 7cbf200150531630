// Serves one Worker as `wrangler dev` does, but through wrangler's programmatic API with the dev
// inspector off, for the bench. `wrangler dev` always attaches an inspector proxy that forwards every
// console call to the CLI process, which costs more CPU than a whole bare request (BENCHMARKS.md); a
// deployed Worker pays nothing like it. The Worker's console output arrives on stdout.
// usage: node scripts/worker-host.mjs <config> <port> <persist-dir> [NAME=value ...]
// With WORKER_HOST_KEEP set, only output lines containing that text are written: under load the
// Worker logs thousands of lines a second that nobody reads (a deployed Worker ships its logs off
// the request path; here each would cost a pipe write and a read in the caller).
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
// WORKER_HOST_COMPANIONS (a JSON array of configs): the Workers its service bindings call (the
// documents Worker), started first, each on a port and in a state directory of its own (two
// workerd processes on one directory lock each other's SQLite files).
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
