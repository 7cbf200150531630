// `npm run deploy [-- <wrangler deploy options>]`: documents, jobs (with wrangler.toml's [vars]), then
// the API Worker, each after those it calls; `--dry-run --outdir dist` writes dist/<worker>;
// `--secrets-file`, `--env`: docs/api.md part 8, "Deploying to Cloudflare".
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
