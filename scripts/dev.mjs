// `npm run dev`: local secrets, migrated local D1, then wrangler dev on http://127.0.0.1:8787 with the
// API Worker, the jobs Worker and the documents Worker (queues, R2 and D1 local under .wrangler/state).
// PORT moves the API and its inspector with it (PORT + 1000, as every Worker the scripts and tests
// start), so that two dev servers never meet on wrangler's default inspector port 9229.
import { syncDevVars } from "./dev-vars.mjs";
import { INSPECTOR_OFFSET } from "./ports.mjs";
import { wranglerSpawn, wranglerSync } from "./wrangler.mjs";

syncDevVars();
wranglerSync(["d1", "migrations", "apply", "DB", "--local"]);

const port = Number(process.env.PORT ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 64535)
  throw new Error(`PORT must be a port from 1 to 64535, not ${process.env.PORT}`);
const args = [
  "dev",
  // The API Worker, the jobs Worker that consumes its queues, and the documents Worker its RENDERER
  // binding calls (e-invoices).
  "--config",
  "wrangler.toml",
  "--config",
  "wrangler.jobs.toml",
  "--config",
  "wrangler.documents.toml",
  "--ip",
  "127.0.0.1",
  "--port",
  String(port),
  "--inspector-port",
  String(port + INSPECTOR_OFFSET),
  ...process.argv.slice(2),
];
const dev = wranglerSpawn(args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
