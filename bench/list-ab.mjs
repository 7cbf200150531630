// `npm run bench:list -- [<git ref>] [--rounds <n>] [--seconds <s>] [--port <base>]`: the list pair
// of `npm run bench` (one connection, GET /card_orders?page_size=25 against the raw-d1 baseline) with
// a third side, the service of another commit (default HEAD~1), all three taking turns. Prints each
// service against the baseline and this checkout against the other commit, median of the per-round
// ratios; the last line is one JSON object. A change to the list path is judged by these ratios from
// one run, not by two full runs from different minutes (BENCHMARKS.md). The other commit is built
// with this checkout's node_modules.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { startWorker, stopAllWorkers } from "../scripts/local-worker.mjs";
import { isFree } from "../scripts/ports.mjs";
import { alternate } from "./load.mjs";
import { median } from "./measure.mjs";
import { writeSeed } from "./seed.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rounds: { type: "string", default: "12" },
    seconds: { type: "string", default: "4" },
    port: { type: "string", default: "8970" },
  },
});
const ref = positionals[0] ?? "HEAD~1";
const [rounds, seconds, base] = [Number(flags.rounds), Number(flags.seconds), Number(flags.port)];
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const git = (...args) => execFileSync("git", ["-C", root, ...args], { stdio: ["ignore", "ignore", "inherit"] });
const work = mkdtempSync(join(tmpdir(), "list-ab-"));
const other = join(work, "checkout");
const PAGE_SIZE = 25;

git("worktree", "prune");
let added = false;
const stop = () => stopAllWorkers().finally(() => process.exit(130));
process.once("SIGINT", stop).once("SIGTERM", stop);
try {
  git("worktree", "add", "--detach", "--force", other, ref);
  added = true;
  symlinkSync(join(root, "node_modules"), join(other, "node_modules"));
  execFileSync(process.execPath, ["scripts/build-assets.mjs"], { cwd: other, stdio: ["ignore", "ignore", "inherit"] });
  for (let port = base; port < base + 3; port++)
    if (!(await isFree(port)) || !(await isFree(port + 1000)))
      throw new Error(`port ${port} or ${port + 1000} is in use; pass --port`);

  const seed = writeSeed(join(work, "seed.sql"));
  const secret = crypto.randomUUID() + crypto.randomUUID();
  const vars = { JWT_SECRET: secret, APP_SECRET: crypto.randomUUID() };
  const common = {
    inspector: false,
    seed: join(work, "seed.sql"),
    env: { WRANGLER_LOG_PATH: join(work, "wrangler-logs"), WORKER_HOST_KEEP: "list-ab: keep no line" },
  };
  const [mine, theirs, raw] = await Promise.all([
    startWorker({ ...common, name: "list-ab-mine", port: base, rateLimit: 100_000_000, vars }),
    startWorker({
      ...common,
      name: "list-ab-other",
      port: base + 1,
      config: join(other, "wrangler.toml"),
      rateLimit: 100_000_000,
      vars,
    }),
    startWorker({
      ...common,
      name: "list-ab-raw",
      port: base + 2,
      config: "bench/raw-d1/wrangler.toml",
      readyPath: "/",
    }),
  ]);
  const token = await sign(
    {
      sub: "bench",
      customer_id: seed.listCustomer,
      scope: "card_orders:read",
      exp: Math.floor(Date.now() / 1000) + 3600,
    },
    secret,
    "HS256",
  );
  const list = (url) => ({
    url: `${url}/card_orders?page_size=${PAGE_SIZE}`,
    headers: { Authorization: `Bearer ${token}` },
  });
  console.error(`list pair, one connection, ${rounds} rounds x ${seconds} s per side: this checkout, ${ref}, raw-d1`);
  const measured = await alternate(
    { mine: list(mine.url), theirs: list(theirs.url), raw: { url: `${raw.url}/?customer=${seed.listCustomer}` } },
    { rounds, seconds, warmup: 3, connections: 1 },
  );
  const rps = (round) => round.requests / round.seconds;
  const ratio = (a, b) => median(measured[a].map((round, i) => rps(round) / rps(measured[b][i])));
  const figures = {
    ref,
    rounds,
    list_ratio: ratio("mine", "raw"),
    other_list_ratio: ratio("theirs", "raw"),
    mine_over_other: ratio("mine", "theirs"),
  };
  for (const side of ["mine", "theirs", "raw"])
    console.error(`${side.padEnd(6)} req/s by round: ${measured[side].map((r) => rps(r).toFixed(0)).join(" ")}`);
  console.error(
    `this checkout/raw-d1 ${figures.list_ratio.toFixed(3)}, ${ref}/raw-d1 ${figures.other_list_ratio.toFixed(3)}, ` +
      `this checkout/${ref} ${figures.mine_over_other.toFixed(3)}`,
  );
  console.log(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(figures).map(([k, v]) => [k, typeof v === "number" ? Math.round(v * 1000) / 1000 : v]),
      ),
    ),
  );
} finally {
  await stopAllWorkers();
  try {
    if (added) git("worktree", "remove", "--force", other);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
