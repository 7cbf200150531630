// `npm run dev`: local secrets, migrated local D1, then wrangler dev on http://127.0.0.1:8787 with the
// API Worker, the jobs Worker and the documents Worker (queues, R2 and D1 local under .wrangler/state).
// PORT moves the API and its inspector with it (PORT + 1000, as every Worker the scripts and tests
// start), so that two dev servers never meet on wrangler's default inspector port 9229. `--port` and
// `--inspector-port` after `npm run dev --` win over PORT and PORT + 1000 (wrangler gets each once).
// The migrations print one line (wrangler's tables only when they fail).
import { apiVars, derivedConfig } from "./derived-config.mjs";
import { readDevVars, syncDevVars } from "./dev-vars.mjs";
import { INSPECTOR_OFFSET } from "./ports.mjs";
import { applyLocalMigrations, wranglerSpawn } from "./wrangler.mjs";

/** The value of `name <value>` or `name=<value>` in `args`, taken out of them (the last one wins). */
function takeOption(args, name) {
  let value;
  for (let i = 0; i < args.length; ) {
    if (args[i] === name && i + 1 < args.length) value = args.splice(i, 2)[1];
    else if (args[i].startsWith(`${name}=`)) value = args.splice(i, 1)[0].slice(name.length + 1);
    else i++;
  }
  return value;
}

const passed = process.argv.slice(2);
const [portOption, inspectorOption] = [takeOption(passed, "--port"), takeOption(passed, "--inspector-port")];
const port = Number(portOption ?? process.env.PORT ?? 8787);
const inspectorPort = Number(inspectorOption ?? port + INSPECTOR_OFFSET);
const isPort = (n) => Number.isInteger(n) && n >= 1 && n <= 65535;
const problem = !isPort(port)
  ? `${portOption === undefined ? "PORT" : "--port"} must be a port from 1 to 65535, not ${portOption ?? process.env.PORT}`
  : !isPort(inspectorPort)
    ? inspectorOption === undefined
      ? `the inspector's port, PORT + 1000 (${inspectorPort}), is above 65535: give a lower PORT or --inspector-port`
      : `--inspector-port must be a port from 1 to 65535, not ${inspectorOption}`
    : undefined;
if (problem) {
  console.error(`npm run dev: ${problem}`);
  process.exit(2);
}

syncDevVars();
applyLocalMigrations();

// The jobs Worker answers what the API Worker passes on with the same pipeline: it gets wrangler.toml's
// [vars] and .dev.vars' secrets (wrangler reads .dev.vars beside a config, and its config is derived).
const jobs = derivedConfig("wrangler.jobs.toml", "dev-jobs", { vars: { ...apiVars(), ...readDevVars() } });
const args = [
  "dev",
  // The API Worker, the jobs Worker that consumes its queues and answers what it passes on, and the
  // documents Worker the jobs Worker's RENDERER binding calls (e-invoices).
  "--config",
  "wrangler.toml",
  "--config",
  jobs,
  "--config",
  "wrangler.documents.toml",
  "--ip",
  "127.0.0.1",
  "--port",
  String(port),
  "--inspector-port",
  String(inspectorPort),
  ...passed,
];
const dev = wranglerSpawn(args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
