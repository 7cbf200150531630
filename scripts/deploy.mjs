// `npm run deploy [-- <wrangler deploy options>]`: the three Workers, each after the Workers it calls:
// the documents Worker, then the jobs Worker (the documents Worker's caller) with wrangler.toml's [vars]
// (it answers what the API Worker passes on, with the same pipeline: src/http/pass-on.ts), then the API
// Worker. `-- --dry-run --outdir dist` builds all three without an account. Secrets are each Worker's
// own (README, Deploying).
import { apiVars, derivedConfig } from "./derived-config.mjs";
import { wranglerSync } from "./wrangler.mjs";

const options = process.argv.slice(2);
const jobs = derivedConfig("wrangler.jobs.toml", "deploy-jobs", { vars: apiVars() });
for (const config of ["wrangler.documents.toml", jobs, "wrangler.toml"]) {
  console.log(`wrangler deploy --config ${config}`);
  wranglerSync(["deploy", "--config", config, ...options], { env: process.env });
}
