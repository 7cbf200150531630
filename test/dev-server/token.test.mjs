// `npm run token` (scripts/token.mjs) as a developer meets it: `--help` prints the usage, with the scopes
// of docs/api.md part 2, and exits 0; a wrong argument (a scope no route asks for too) prints one line
// naming what is wrong, then the usage, and exits 2; never a Node stack trace. A right one prints a token signed with the JWT_SECRET of the vars file, with the claims asked
// for. Needs no dev server (run by `npm run test:dev` with the others).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { verify } from "hono/jwt";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SECRET = "token-test-secret-0123456789abcdef";
const varsFile = join(mkdtempSync(join(tmpdir(), "token-test-")), ".dev.vars");
writeFileSync(varsFile, `JWT_SECRET=${SECRET}\n`);
after(() => rmSync(dirname(varsFile), { recursive: true, force: true }));

/** Runs the script (through npm when asked, as the README's readers do) and takes all it printed. */
const run = (args, { npm = false } = {}) =>
  new Promise((resolve) => {
    const [command, argv] = npm
      ? ["npm", ["run", "-s", "token", "--", ...args]]
      : [process.execPath, [join(ROOT, "scripts/token.mjs"), ...args]];
    execFile(command, argv, { cwd: ROOT }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });

/** The scopes of docs/api.md part 2's table, in its order. */
const DOCUMENTED_SCOPES = readFileSync(join(ROOT, "docs/api.md"), "utf8")
  .split("### Scopes\n")[1]
  .split("\n\n")[0]
  .trim()
  .split("\n")
  .slice(2)
  .map((row) => row.match(/^\| `([^`]+)` \|/)[1]);
const KNOWN = [...DOCUMENTED_SCOPES].sort().join(", ");

const STACK_FRAME = /^\s+at /m;
const USAGE_LINE = /^usage: npm run token -- --sub <id>/m;

test("--help prints the usage on stdout and exits 0, also through npm", async () => {
  for (const [args, npm] of [
    [["--help"], false],
    [["-h"], false],
    [["--help"], true],
  ]) {
    const { code, stdout, stderr } = await run(args, { npm });
    assert.equal(code, 0, `${args} ${stderr}`);
    assert.match(stdout, /^usage: npm run token -- --sub <id>/);
    for (const option of ["--sub", "--customer", "--scope", "--ttl", "--iss", "--aud", "--vars-file", "--help"])
      assert.ok(stdout.includes(option), `the usage names ${option}`);
    // Every scope a route asks for, one a line, and nothing else after them.
    assert.equal(
      stdout.split("\nScopes (the routes', docs/api.md part 2):\n")[1],
      `${[...DOCUMENTED_SCOPES]
        .sort()
        .map((scope) => `  ${scope}`)
        .join("\n")}\n`,
    );
    assert.equal(stderr, "");
  }
});

const BAD = [
  // [arguments, the error line]
  [["--ttl", "-60"], "--sub is required"],
  [["--sub", "alice", "--ttl", "-60"], '--ttl must be a whole number of seconds from 1 to 31536000, not "-60"'],
  [["--sub", "alice", "--ttl=-60"], '--ttl must be a whole number of seconds from 1 to 31536000, not "-60"'],
  [["--sub", "alice", "--ttl", "0"], '--ttl must be a whole number of seconds from 1 to 31536000, not "0"'],
  [["--sub", "alice", "--ttl", "1.5"], '--ttl must be a whole number of seconds from 1 to 31536000, not "1.5"'],
  [["--sub", "alice", "--ttl", "1h"], '--ttl must be a whole number of seconds from 1 to 31536000, not "1h"'],
  [
    ["--sub", "alice", "--ttl", "31536001"],
    '--ttl must be a whole number of seconds from 1 to 31536000, not "31536001"',
  ],
  [[], "--sub is required"],
  [["--sub"], "--sub needs a value"],
  [["--sub", "--customer", "acme"], "--sub needs a value"],
  [["--sub="], "--sub must not be empty"],
  [["--sub", "alice", "--customer="], "--customer must not be empty; leave it out for no customer_id"],
  [["--sub", "alice", "--customer"], "--customer needs a value"],
  [["--sub", "alice", "--user", "bob"], "unknown option --user"],
  [["--sub", "alice", "-x"], "unknown option -x"],
  [["--sub", "alice", "--help=yes"], "--help takes no value"],
  [
    ["--sub", "alice", "--scope", "card_orders:read", "invoices:read"],
    `unexpected argument 'invoices:read' (several scopes go in quotes: --scope "a b")`,
  ],
  [["--sub", "alice", "--scope", "card_order:read"], `unknown scope card_order:read; the known ones: ${KNOWN}`],
  [
    ["--sub", "alice", "--scope", "invoices:read  invoice:write payments"],
    `unknown scopes invoice:write, payments; the known ones: ${KNOWN}`,
  ],
];

for (const [args, message] of BAD) {
  test(`\`npm run token -- ${args.join(" ")}\`: one line saying what is wrong, the usage, exit 2`, async () => {
    const { code, stdout, stderr } = await run(["--vars-file", varsFile, ...args]);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, "");
    const [first, blank, ...rest] = stderr.split("\n");
    assert.equal(first, `npm run token: ${message}`);
    assert.equal(blank, "");
    assert.match(rest.join("\n"), USAGE_LINE);
    assert.doesNotMatch(stderr, STACK_FRAME);
  });
}

test("the same through npm: the error line and the usage, exit 2, no stack trace", async () => {
  const { code, stdout, stderr } = await run(["--ttl", "-60"], { npm: true });
  assert.equal(code, 2, stderr);
  assert.equal(stdout, "");
  assert.match(stderr, /^npm run token: --sub is required\n/);
  assert.match(stderr, USAGE_LINE);
  assert.doesNotMatch(stderr, STACK_FRAME);
});

test("no vars file: one line saying how to make one, exit 1", async () => {
  const missing = join(dirname(varsFile), "absent.vars");
  const { code, stdout, stderr } = await run(["--sub", "alice", "--vars-file", missing]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    `No JWT_SECRET in ${missing}: run \`npm run dev\` once, or copy .dev.vars.example to .dev.vars.\n`,
  );
});

test("a right call prints a token with the claims asked for, signed with the vars file's JWT_SECRET", async () => {
  const before = Math.floor(Date.now() / 1000);
  const { code, stdout, stderr } = await run([
    "--sub",
    "alice",
    "--customer",
    "acme",
    "--scope",
    "card_orders:read invoices:read",
    "--ttl",
    "120",
    "--iss",
    "https://issuer.example",
    "--aud",
    "voucher-billing",
    "--vars-file",
    varsFile,
  ]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  const claims = await verify(stdout.trim(), SECRET, "HS256");
  assert.deepEqual(Object.keys(claims), ["sub", "scope", "iat", "exp", "customer_id", "iss", "aud"]);
  assert.equal(claims.sub, "alice");
  assert.equal(claims.customer_id, "acme");
  assert.equal(claims.scope, "card_orders:read invoices:read");
  assert.equal(claims.iss, "https://issuer.example");
  assert.equal(claims.aud, "voucher-billing");
  assert.ok(claims.iat >= before && claims.iat <= before + 5);
  assert.equal(claims.exp - claims.iat, 120);

  // The defaults: no customer_id, no scopes, an hour.
  const plain = await run(["--sub", "owner-42", "--vars-file", varsFile]);
  assert.equal(plain.code, 0, plain.stderr);
  const defaults = await verify(plain.stdout.trim(), SECRET, "HS256");
  assert.deepEqual(Object.keys(defaults), ["sub", "scope", "iat", "exp"]);
  assert.equal(defaults.scope, "");
  assert.equal(defaults.exp - defaults.iat, 3600);
});
