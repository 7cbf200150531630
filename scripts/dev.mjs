// `npm run dev`: local secrets, migrated local D1, then wrangler dev on http://127.0.0.1:8787.
import { syncDevVars } from "./dev-vars.mjs";
import { wranglerSpawn, wranglerSync } from "./wrangler.mjs";

syncDevVars();
wranglerSync(["d1", "migrations", "apply", "DB", "--local"]);

const dev = wranglerSpawn(["dev", "--ip", "127.0.0.1", "--port", process.env.PORT ?? "8787", ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
