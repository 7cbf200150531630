// .dev.vars for `wrangler dev`: created from .dev.vars.example, and later given every key the
// example has and it lacks (docs/api.md part 12), without changing a value it has.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

const keysOf = (text) => new Set([...text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map(([, key]) => key));

export function syncDevVars(file = ".dev.vars", example = ".dev.vars.example") {
  const template = readFileSync(example, "utf8");
  if (!existsSync(file)) {
    writeFileSync(file, template);
    console.log(`Created ${file} from ${example}`);
    return;
  }
  const have = keysOf(readFileSync(file, "utf8"));
  const missing = template
    .split("\n")
    .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line) && !have.has(line.slice(0, line.indexOf("="))));
  if (missing.length === 0) return;
  const text = readFileSync(file, "utf8");
  appendFileSync(
    file,
    `${text.endsWith("\n") || text === "" ? "" : "\n"}# Added from ${example}:\n${missing.join("\n")}\n`,
  );
  console.log(`Added ${missing.map((line) => line.slice(0, line.indexOf("="))).join(", ")} to ${file} from ${example}`);
}

/** The variables of a .dev.vars file, a value's surrounding quotes taken off (as wrangler reads them). */
export function readDevVars(file = ".dev.vars") {
  const pairs = readFileSync(file, "utf8").matchAll(/^([A-Z][A-Z0-9_]*)\s*=\s*(.*?)\s*$/gm);
  return Object.fromEntries([...pairs].map(([, key, value]) => [key, value.replace(/^'(.*)'$|^"(.*)"$/, "$1$2")]));
}
