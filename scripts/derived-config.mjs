// Wrangler configs derived from the repository's, under .wrangler/generated, for the scripts that start
// Workers and for deploy; the jobs Worker gets wrangler.toml's [vars] from here (src/http/pass-on.ts).
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { unstable_readConfig } from "wrangler";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/** wrangler.toml's [vars] (an environment's, `[env.<env>.vars]`, with `env`), as strings. */
export function apiVars(env) {
  const { vars } = unstable_readConfig({ config: resolve(ROOT, "wrangler.toml"), env });
  return Object.fromEntries(Object.entries(vars ?? {}).map(([key, value]) => [key, String(value)]));
}

/**
 * A copy of a wrangler config with absolute paths and optionally another rate limit, `main`, `vars`
 * (`--var` reaches the first Worker only), `devVars` (a .dev.vars linked beside it: secrets, shown
 * hidden) or `env` (that environment's vars).
 */
export function derivedConfig(config, name, { rateLimit, main: entry, vars, devVars, env }) {
  const source = resolve(ROOT, config);
  let toml = readFileSync(source, "utf8")
    .replace(
      /^main = "(.+)"$/m,
      (_, main) => `main = "${entry ? resolve(ROOT, entry) : resolve(dirname(source), main)}"`,
    )
    .replace(/^migrations_dir = "(.+)"$/m, (_, dir) => `migrations_dir = "${resolve(dirname(source), dir)}"`)
    .replace(/^(directory|watch_dir) = "(.+)"$/gm, (_, key, dir) => `${key} = "${resolve(dirname(source), dir)}"`);
  if (rateLimit)
    toml = toml.replace(/simple = \{ limit = \d+, period = (\d+) \}/, `simple = { limit = ${rateLimit}, period = $1 }`);
  if (vars && Object.keys(vars).length > 0) {
    // An environment's vars are its own (wrangler does not inherit [vars] into [env.<env>]).
    const table = env ? `env.${env}.vars` : "vars";
    if (toml.split("\n").includes(`[${table}]`))
      throw new Error(`${config} has [${table}] of its own: give its vars with --var`);
    toml += `\n[${table}]\n${Object.entries(vars)
      .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
      .join("\n")}\n`;
  }
  const dir = resolve(ROOT, ".wrangler/generated", devVars ? name : ".");
  mkdirSync(dir, { recursive: true });
  const path = resolve(dir, devVars ? "wrangler.toml" : `${name}.toml`);
  writeFileSync(path, toml);
  if (devVars) {
    const link = resolve(dir, ".dev.vars");
    rmSync(link, { force: true });
    try {
      symlinkSync(resolve(devVars), link);
    } catch {
      copyFileSync(resolve(devVars), link); // no symlinks (Windows without developer mode)
    }
  }
  return path;
}
