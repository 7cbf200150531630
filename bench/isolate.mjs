// `npm run bench:isolate -- [<git ref>] [--rounds <n>] [--profile <file>]`: the JavaScript of the
// list path alone, in workerd: GET /card_orders?page_size=25 through the service's fetch, and
// raw-d1's fetch, each 2,000 times inside one request on a D1 that answers from memory
// (bench/isolate/harness.js), for this checkout and another commit (default HEAD~1) in turns.
// Prints microseconds per request (median round) and ratios; the last line is one JSON object.
// Unlike the list pair of `npm run bench`, no process, pipe or database shares the figure, so a
// change of a few microseconds shows. With --profile, writes a V8 CPU profile of this checkout's
// service path (50 us sampling) for Chrome DevTools or any .cpuprofile viewer.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { median } from "./measure.mjs";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: "string", default: "15" }, profile: { type: "string" } },
});
const ref = positionals[0] ?? "HEAD~1";
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a whole number from 1, not ${flags.rounds}`);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// wrangler's own Miniflare (and its WebSocket client), the workerd that `wrangler dev` runs.
const fromWrangler = createRequire(createRequire(join(root, "package.json")).resolve("wrangler/package.json"));
const { Miniflare, convertV4MiniflareOptions } = fromWrangler("miniflare");
// The one compatibility date of every wrangler config here (scripts/check-house.mjs holds them equal).
const compatibilityDate = readFileSync(join(root, "wrangler.toml"), "utf8").match(/^compatibility_date = "(.+)"$/m)[1];
const { build } = createRequire(join(root, "package.json"))("esbuild");
const PER_ROUND = 2000;

const git = (...args) => execFileSync("git", ["-C", root, ...args], { stdio: ["ignore", "ignore", "inherit"] });
const work = mkdtempSync(join(tmpdir(), "isolate-"));
const other = join(work, "checkout");
const secrets = { JWT_SECRET: crypto.randomUUID(), APP_SECRET: crypto.randomUUID() };
const token = await sign(
  {
    sub: "bench",
    customer_id: "bench-customer-1",
    scope: "card_orders:read",
    exp: Math.floor(Date.now() / 1000) + 3600,
  },
  secrets.JWT_SECRET,
  "HS256",
);

/** The harness with `checkout`'s service, bundled as wrangler bundles it (minified unless profiled). */
async function harness(checkout, minify) {
  const result = await build({
    entryPoints: [join(root, "bench/isolate/harness.js")],
    alias: { service: join(checkout, "src/index.ts") },
    nodePaths: [join(root, "node_modules")],
    bundle: true,
    format: "esm",
    conditions: ["workerd", "worker", "browser"],
    minify,
    write: false,
    logLevel: "error",
  });
  const options = {
    modules: true,
    script: result.outputFiles[0].text,
    compatibilityDate,
    bindings: secrets,
    ...(minify ? {} : { inspectorPort: 0 }),
  };
  return new Miniflare(convertV4MiniflareOptions(options));
}

/** Microseconds per request of one side, over PER_ROUND requests in one call. */
async function perRequest(mf, side, n = PER_ROUND) {
  const started = performance.now();
  const response = await mf.dispatchFetch(`http://bench/?n=${n}&side=${side}&token=${token}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${side}: ${text}`);
  return ((performance.now() - started) * 1000) / n;
}

git("worktree", "prune");
let added = false;
const workers = [];
try {
  git("worktree", "add", "--detach", "--force", other, ref);
  added = true;
  symlinkSync(join(root, "node_modules"), join(other, "node_modules"));
  const sides = [
    { name: "this checkout", mf: await harness(root, true), service: [], raw: [] },
    { name: ref, mf: await harness(other, true), service: [], raw: [] },
  ];
  workers.push(...sides.map((side) => side.mf));
  for (const side of sides) await perRequest(side.mf, "service"), await perRequest(side.mf, "raw"); // JIT
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      side.service.push(await perRequest(side.mf, "service"));
      side.raw.push(await perRequest(side.mf, "raw"));
    }
  }
  const figures = sides.map((side) => ({ service: median(side.service), raw: median(side.raw) }));
  for (const [i, side] of sides.entries())
    console.error(
      `${side.name}: service ${figures[i].service.toFixed(1)} us/request, ` +
        `raw-d1 ${figures[i].raw.toFixed(1)} us/request`,
    );
  const round3 = (x) => Math.round(x * 1000) / 1000;
  console.log(
    JSON.stringify({
      ref,
      rounds,
      service_us: round3(figures[0].service),
      raw_us: round3(figures[0].raw),
      other_service_us: round3(figures[1].service),
      other_raw_us: round3(figures[1].raw),
      service_ratio: round3(figures[0].service / figures[1].service),
    }),
  );
  if (flags.profile) await profile(flags.profile);
} finally {
  await Promise.all(workers.map((mf) => mf.dispose()));
  try {
    if (added) git("worktree", "remove", "--force", other);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A CPU profile of this checkout's service path, unminified, through workerd's inspector. */
async function profile(file) {
  const mf = await harness(root, false);
  workers.push(mf);
  await perRequest(mf, "service");
  const inspector = await mf.getInspectorURL();
  const [target] = await (await fetch(new URL("/json", inspector.href.replace(/^ws/, "http")))).json();
  const WebSocket = fromWrangler("ws");
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ready) => socket.once("open", ready));
  let id = 0;
  const pending = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(data);
    pending.get(message.id)?.(message.result);
  });
  const send = (method, params = {}) =>
    new Promise((done) => (pending.set(++id, done), socket.send(JSON.stringify({ id, method, params }))));
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 50 });
  await send("Profiler.start");
  await perRequest(mf, "service", 5 * PER_ROUND);
  const { profile: result } = await send("Profiler.stop");
  socket.close();
  writeFileSync(file, JSON.stringify(result));
  console.error(`profile of this checkout's service path: ${file}`);
}
