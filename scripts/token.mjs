// `npm run token -- --sub <id> [--customer <id>] [--scope "<scopes>"] [--ttl <seconds>]`: an HS256 token
// signed with .dev.vars' JWT_SECRET. Scopes are checked against the route table's (src/app.ts), so
// a typo is refused here, not found as a 403; a wrong argument prints one line and the usage (exit 2).
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { readDevVars } from "./dev-vars.mjs";
import { importSource } from "./import-source.mjs";

/** A year: a local token that outlives that is a mistake more often than a wish. */
const MAX_TTL = 365 * 24 * 3600;
/** The scopes the routes ask for, each once, sorted (docs/api.md part 2). */
async function knownScopes() {
  const { endpoints } = await importSource('export { endpoints } from "./src/app";');
  return [...new Set(endpoints.flatMap(({ spec }) => (spec.access ? [spec.access.scope] : [])))].sort();
}

const usage = (scopes) => `usage: npm run token -- --sub <id> [--customer <id>] [--scope "<scopes>"] [--ttl <seconds>]

Prints an access token (HS256, signed with JWT_SECRET from .dev.vars) for requests to \`npm run dev\`.

  --sub <id>          who calls: a user, a back-office id, or a voucher owner (required)
  --customer <id>     customer_id: the customer whose card orders and invoices it works on
  --scope "<scopes>"  scopes separated by spaces, e.g. "card_orders:read card_orders:write" (default: none)
  --ttl <seconds>     lifetime in whole seconds, 1 to ${MAX_TTL} (default 3600)
  --iss <issuer>      the iss claim, for JWT_ISSUER
  --aud <audience>    the aud claim, for JWT_AUDIENCE
  --vars-file <file>  where JWT_SECRET is read (default .dev.vars)
  -h, --help          this text

Scopes (the routes', docs/api.md part 2):
${scopes.map((scope) => `  ${scope}`).join("\n")}`;

const OPTIONS = {
  sub: { type: "string" },
  customer: { type: "string" },
  scope: { type: "string", default: "" },
  ttl: { type: "string", default: "3600" },
  iss: { type: "string" },
  aud: { type: "string" },
  "vars-file": { type: "string", default: ".dev.vars" },
  help: { type: "boolean", short: "h" },
};

class UsageError extends Error {}

/** parseArgs, but a value starting with "-" that is no option (`--ttl -60`) is taken as the value. */
function parse(argv) {
  const isOption = (arg) =>
    arg === "-h" || arg === "--" || Object.hasOwn(OPTIONS, arg.replace(/^--/, "").split("=")[0]);
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    const [arg, next] = [argv[i], argv[i + 1]];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (name && OPTIONS[name]?.type === "string" && next?.startsWith("-") && !isOption(next)) {
      args.push(`${arg}=${next}`);
      i++;
    } else args.push(arg);
  }
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(parseError(error));
  }
}

/** parseArgs' error as one line. */
function parseError(error) {
  const option = error.message.match(/'(?:-\w, )?(--[\w-]+)/)?.[1];
  const [first] = error.message.split("\n");
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${error.message.match(/'([^']+)'/)?.[1] ?? ""}`.trim();
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      // Most often the second scope of an unquoted --scope.
      return `unexpected argument ${error.message.match(/'[^']*'/)?.[0] ?? ""} (several scopes go in quotes: --scope "a b")`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (option && OPTIONS[option.slice(2)]?.type === "boolean") return `${option} takes no value`;
      if (option) return `${option} needs a value`;
      return first;
    default:
      return first;
  }
}

function check(values, scopes) {
  if (values.sub === undefined) throw new UsageError("--sub is required");
  if (values.sub === "") throw new UsageError("--sub must not be empty");
  if (values.customer === "") throw new UsageError("--customer must not be empty; leave it out for no customer_id");
  const ttl = Number(values.ttl);
  if (!/^\d+$/.test(values.ttl) || ttl < 1 || ttl > MAX_TTL)
    throw new UsageError(
      `--ttl must be a whole number of seconds from 1 to ${MAX_TTL}, not ${JSON.stringify(values.ttl)}`,
    );
  const unknown = values.scope.split(" ").filter((scope) => scope !== "" && !scopes.includes(scope));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown scope${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; the known ones: ${scopes.join(", ")}`,
    );
  return ttl;
}

async function main(argv) {
  const scopes = await knownScopes();
  let values;
  let ttl;
  try {
    values = parse(argv);
    if (values.help) {
      console.log(usage(scopes));
      return 0;
    }
    ttl = check(values, scopes);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`npm run token: ${error.message}\n\n${usage(scopes)}`);
    return 2;
  }

  let secret;
  try {
    secret = readDevVars(values["vars-file"]).JWT_SECRET;
  } catch {
    // reported below
  }
  if (!secret) {
    console.error(
      `No JWT_SECRET in ${values["vars-file"]}: run \`npm run dev\` once, or copy .dev.vars.example to .dev.vars.`,
    );
    return 1;
  }

  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: values.sub, scope: values.scope, iat: now, exp: now + ttl };
  if (values.customer) claims.customer_id = values.customer;
  if (values.iss) claims.iss = values.iss;
  if (values.aud) claims.aud = values.aud;
  console.log(await sign(claims, secret, "HS256"));
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  // Not the caller's arguments: still one line, not a stack trace.
  console.error(`npm run token: ${error?.message ?? error}`);
  process.exitCode = 1;
}
