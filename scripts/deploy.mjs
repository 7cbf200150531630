// `npm run deploy [-- <wrangler deploy options>]`: the three Workers, each after the Workers it calls:
// the documents Worker, then the jobs Worker (the documents Worker's caller) with wrangler.toml's [vars]
// (it answers what the API Worker passes on, with the same pipeline: src/http/pass-on.ts), then the API
// Worker. `-- --dry-run --outdir dist` builds all three without an account, each into a folder of its
// own (dist/documents, dist/jobs, dist/api: one folder would hold the last Worker's index.js only).
// `-- --secrets-file <file>` gives the jobs and API Workers their secrets with their first version (none
// to the documents Worker, which needs none), `-- --env staging` deploys that wrangler environment. What
// to do before the first deploy (resources, migrations, secrets), a custom domain and a staging
// environment: docs/api.md part 8, "Deploying to Cloudflare".
import { join } from "node:path";
import { apiVars, derivedConfig } from "./derived-config.mjs";
import { wranglerSync } from "./wrangler.mjs";

/** The value of `names[i] <value>` or `names[i]=<value>` in `options` (the last one), and `options` without it. */
function take(options, names) {
  let value;
  const rest = [];
  for (let i = 0; i < options.length; i++) {
    const name = names.find((n) => options[i] === n || options[i].startsWith(`${n}=`));
    if (name === undefined) rest.push(options[i]);
    else if (options[i] === name) value = options[++i];
    else value = options[i].slice(name.length + 1);
  }
  return { value, rest };
}

const { value: outdir, rest: withoutOutdir } = take(process.argv.slice(2), ["--outdir"]);
const { value: secretsFile, rest } = take(withoutOutdir, ["--secrets-file"]);
// `--env <name>` goes on to wrangler as given; the jobs Worker gets that environment's vars.
const env = take(rest, ["--env", "-e"]).value;
const jobs = derivedConfig("wrangler.jobs.toml", env ? `deploy-jobs-${env}` : "deploy-jobs", {
  vars: apiVars(env),
  env,
});
// The documents Worker needs no secret; the jobs and API Workers get the file's with their first version.
for (const [folder, config, secrets] of [
  ["documents", "wrangler.documents.toml", false],
  ["jobs", jobs, true],
  ["api", "wrangler.toml", true],
]) {
  const options = [
    ...rest,
    ...(outdir === undefined ? [] : ["--outdir", join(outdir, folder)]),
    ...(secrets && secretsFile !== undefined ? ["--secrets-file", secretsFile] : []),
  ];
  console.log(`wrangler deploy --config ${config}${outdir === undefined ? "" : ` --outdir ${join(outdir, folder)}`}`);
  wranglerSync(["deploy", "--config", config, ...options], { env: process.env });
}
