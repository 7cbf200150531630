// `npm run dev`: local secrets, migrated D1, then wrangler dev with the API, jobs and documents Workers
// on 127.0.0.1:8787 (PORT moves it, the inspector at PORT + 1000; `--port`/`--inspector-port` win);
// quiet (scripts/dev-quiet.mjs), and no secret printed. README.md, "Two commands".
import { apiVars, derivedConfig } from "./derived-config.mjs";
import { holdDevLock } from "./dev-lock.mjs";
import { syncDevVars } from "./dev-vars.mjs";
import { CRON_WORKER } from "./local-worker.mjs";
import { INSPECTOR_OFFSET } from "./ports.mjs";
import { applyLocalMigrations, quietEnv, wranglerSpawn } from "./wrangler.mjs";

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
// `npm run db:reset` refuses while this runs (scripts/dev-lock.mjs).
holdDevLock(`http://127.0.0.1:${port}`);

// The jobs Worker answers what the API passes on: wrangler.toml's [vars], and .dev.vars as secrets.
const jobs = derivedConfig("wrangler.jobs.toml", "dev-jobs", { vars: apiVars(), devVars: ".dev.vars" });
const args = [
  "dev",
  // The API Worker, the jobs Worker (its queues, what it passes on) and the documents Worker (RENDERER).
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
const url = `http://127.0.0.1:${port}`;
const summary = [
  "",
  `  API        ${url}  (the API Worker; the jobs and documents Workers answer behind it)`,
  `  Reference  ${url}/docs  (OpenAPI: ${url}/openapi.json; docs/api.md)`,
  `  Tokens     npm run token -- --sub alice --customer acme --scope "card_orders:read"  (--help: the scopes)`,
  `  Crons      curl -X POST "${url}/cdn-cgi/local/explorer/api/local/scheduled?worker=${CRON_WORKER}" \\`,
  `               -H 'Content-Type: application/json' -d '{"cron":"* * * * *"}'  (hourly: "17 * * * *")`,
  `  Database   .wrangler/state (npm run db:reset once this is stopped); inspector on 127.0.0.1:${inspectorPort}`,
  "",
].join("\n");
const quiet = new URL("./dev-quiet.mjs", import.meta.url).href;
const dev = wranglerSpawn(args, { stdio: "inherit", env: { ...quietEnv, VOUCHER_DEV_SUMMARY: summary } }, [quiet]);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
