// `npm run token -- --sub <id> [--customer <id>] [--scope "<scopes>"] [--ttl <seconds>]`
// Prints an HS256 access token signed with JWT_SECRET from .dev.vars, for local requests.
import { parseArgs } from "node:util";
import { sign } from "hono/jwt";
import { readDevVars } from "./dev-vars.mjs";

const { values } = parseArgs({
  options: {
    sub: { type: "string" },
    customer: { type: "string" },
    scope: { type: "string", default: "" },
    ttl: { type: "string", default: "3600" },
    iss: { type: "string" },
    aud: { type: "string" },
    "vars-file": { type: "string", default: ".dev.vars" },
  },
});

if (!values.sub) {
  console.error('usage: npm run token -- --sub <id> [--customer <id>] [--scope "card_orders:read ..."] [--ttl 3600]');
  process.exit(2);
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
  process.exit(1);
}

const now = Math.floor(Date.now() / 1000);
const claims = { sub: values.sub, scope: values.scope, iat: now, exp: now + Number(values.ttl) };
if (values.customer) claims.customer_id = values.customer;
if (values.iss) claims.iss = values.iss;
if (values.aud) claims.aud = values.aud;
console.log(await sign(claims, secret, "HS256"));
