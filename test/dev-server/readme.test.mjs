// The README's sessions, run as a reader runs them: its curl session (every console block of its
// section, in order) in one bash, step by step, and then its TypeScript client in the same shell
// (TOKEN exported by the session), against a `wrangler dev` with a fresh database that this file
// starts, with the secrets of `.dev.vars` as `npm run dev` makes it. Each step's output must be the
// README's, up to what differs between runs (times, dates, secrets, cursors, RF check digits, the ports
// this run uses). Ids differ too, but not as they please: the README's ids must be the run's renamed one
// for one (the same id where the run repeats one, a new one where it has a new one, a collection's
// message id made from its id), and the receiver's log may name only ids the session showed before, so
// that no id in the README is typed by hand. Deliveries arrive in any order, so the receiver's log is
// compared as a set of lines. `README_SESSION_OUT=<file>` writes what the session printed, step by step
// in the README's form (its host and ports), to paste into the README when the session changes. Ports: free from DEV_SERVER_PORT (default 8900) + 150 on: the API, the receiver (next port)
// and the inspector (1000 above).
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { readDevVars, syncDevVars } from "../../scripts/dev-vars.mjs";
import { einvoiceValidator, pdfChecker, validatorRequired } from "../../scripts/einvoice-validator.mjs";
import { iso20022Validator } from "../../scripts/iso20022-validator.mjs";
import { startWorker } from "../../scripts/local-worker.mjs";
import { firstFreePorts, INSPECTOR_OFFSET } from "../../scripts/ports.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const README_API = "127.0.0.1:8787";
const README_HOOK_PORT = "8788";
/** What the session writes where it works. */
const SESSION_FILES = ["receiver.log", "invoice.xml", "invoice.pdf", "reminder.pdf"];

/** The fenced blocks of `language` after `marker` in the README, up to its next section ("## "). */
function blocks(marker, language) {
  const start = README.indexOf(marker);
  assert.ok(start >= 0, `README has no "${marker}"`);
  const next = README.indexOf("\n## ", start + marker.length);
  const section = README.slice(start, next < 0 ? undefined : next);
  const fence = "```" + language + "\n";
  const found = [];
  for (let open = section.indexOf(fence); open >= 0; open = section.indexOf(fence, open + 1))
    found.push(section.slice(open + fence.length, section.indexOf("\n```", open)));
  assert.ok(found.length > 0, `README's "${marker}" has no ${language} block`);
  return found;
}

/** A console block's `$ ` commands, each with the output shown below it. */
function steps(console) {
  const result = [];
  for (const line of console.split("\n")) {
    if (line.startsWith("$ ")) result.push({ command: line.slice(2), expected: [] });
    else result.at(-1).expected.push(line);
  }
  return result.map(({ command, expected }) => ({ command, expected: expected.join("\n") }));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The run's output with the README's host and ports. */
const asReadme = (text, { api, hookPort }) =>
  text
    .replaceAll("\r", "")
    .replaceAll(api, README_API)
    .replaceAll(`127.0.0.1:${hookPort}/`, `127.0.0.1:${README_HOOK_PORT}/`);

/**
 * The run's ids and the README's, one for one: `pair(run, readme)` takes two outputs that agree but for
 * their ids and holds each id of the one to the same id of the other, across the whole session;
 * `translate(run)` writes the run's output with the README's ids (and a collection's message id, made
 * from its id: src/domain/direct-debits.ts), and names an id the session never showed.
 */
function idRenaming() {
  const [toReadme, fromReadme] = [new Map(), new Map()];
  const messageIdOf = (id) => `DD${id.replaceAll("-", "").slice(0, 26).toUpperCase()}`;
  return {
    pair(run, readme, where) {
      const [ours, theirs] = [run.match(UUID) ?? [], readme.match(UUID) ?? []];
      ours.forEach((id, i) => {
        const shown = theirs[i];
        assert.equal(toReadme.get(id) ?? shown, shown, `${where}: the run's ${id} is ${toReadme.get(id)} before`);
        assert.equal(fromReadme.get(shown) ?? id, id, `${where}: the README's ${shown} is two ids of the run`);
        toReadme.set(id, shown);
        fromReadme.set(shown, id);
      });
    },
    translate(run, where) {
      const messages = new Map([...toReadme].map(([ours, theirs]) => [messageIdOf(ours), messageIdOf(theirs)]));
      return run
        .replace(UUID, (id) => {
          assert.ok(toReadme.has(id), `${where}: ${id} was not shown before, so the README cannot know it`);
          return toReadme.get(id);
        })
        .replace(/DD[0-9A-F]{26}/g, (message) => messages.get(message) ?? message);
    },
  };
}

/**
 * What differs between two runs of the same session, written the same way; `ids`: the ids and message
 * ids too (false once the run's are the README's: idRenaming().translate).
 */
function normalized(text, ports, ids = true) {
  const renamed = ids
    ? asReadme(text, ports)
        .replace(UUID, "<uuid>")
        .replace(/DD[0-9A-F]{26}/g, "DD<message>")
    : text;
  return (
    asReadme(renamed, ports)
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<time>")
      .replace(/\d{4}-\d{2}-\d{2}/g, "<date>")
      .replace(/INV-\d{4}-/g, "INV-<year>-")
      // An invoice's RF reference: its check digits follow the year.
      .replace(/RF\d{2}INV\d{4}/g, "RF<check>INV<year>")
      .replace(/whsec_[A-Za-z0-9+/=]+/g, "whsec_<secret>")
      // A direct debit file's CreDtTm (to the second).
      .replace(/T\d{2}:\d{2}:\d{2}Z/g, "T<time>Z")
      .replace(/cursor=[A-Za-z0-9_.-]+/g, "cursor=<cursor>")
      .replace(/\n+$/, "")
  );
}

/**
 * One bash, as a terminal would hold it: each `run` types a command and returns its output. The
 * output goes through a named pipe: the session's `tee /dev/stderr` can open a pipe again, not
 * the socket Node's own stdio would be, and a file it would truncate.
 */
function shell(env) {
  const fifo = join(mkdtempSync(join(tmpdir(), "readme-session-")), "terminal");
  execFileSync("mkfifo", [fifo]);
  const bash = spawn("bash", ["--noprofile", "--norc"], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  bash.stdin.write(`exec > ${fifo} 2>&1\n`);
  let output = "";
  let waiting;
  const take = () => {
    const end = output.match(/\n__STEP_END__(\d+)\n/);
    if (!end || !waiting) return;
    const text = output.slice(0, end.index);
    output = output.slice(end.index + end[0].length);
    waiting({ text, status: Number(end[1]) });
  };
  createReadStream(fifo, "utf8").on("data", (chunk) => ((output += chunk), take()));
  return {
    run(command, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no end of "${command}" within ${timeoutMs} ms; so far:\n${output}`)),
          timeoutMs,
        );
        waiting = (result) => ((waiting = undefined), clearTimeout(timer), resolve(result));
        bash.stdin.write(`${command}\nprintf '\\n__STEP_END__%s\\n' $?\n`);
      });
    },
    // The session's background receiver is in this shell's process group.
    stop: () => new Promise((resolve) => (bash.once("exit", resolve), process.kill(-bash.pid, "SIGTERM"))),
  };
}

test("the README's curl session and TypeScript client, against a fresh `wrangler dev`", {
  timeout: 600_000,
}, async (t) => {
  // The session checks the e-invoices it downloads, and the example bank statement it uploads, with the
  // official tools, when they are there.
  const tools = {
    EINVOICE_VALIDATE: einvoiceValidator(),
    EINVOICE_CHECK_PDF: pdfChecker(),
    ISO20022_VALIDATE: iso20022Validator(),
  };
  for (const tool of Object.values(tools))
    assert.ok(!tool.absent || !validatorRequired(), `the validators are required in CI: ${tool.absent}`);
  syncDevVars(join(ROOT, ".dev.vars"), join(ROOT, ".dev.vars.example"));
  const devVars = readDevVars(join(ROOT, ".dev.vars"));
  const port = await firstFreePorts(
    Number(process.env.DEV_SERVER_PORT ?? 8900) + 150,
    [0, 1, INSPECTOR_OFFSET],
    "DEV_SERVER_PORT",
  );
  const hookPort = port + 1;
  const worker = await startWorker({ name: "readme-session", port, vars: devVars });
  t.after(() => worker.stop());
  const api = `127.0.0.1:${port}`;
  const ports = { api, hookPort };
  const paths = Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, tool.path ?? ""]));
  const bash = shell({ ...process.env, TOKEN: "", ...paths });
  // The session writes receiver.log, invoice.xml, invoice.pdf and reminder.pdf in the folder it works in: the
  // git-ignored scratch/ (or, as before, the project folder). A developer's own are put back afterwards,
  // and a scratch/ the session made is removed.
  const scratch = join(ROOT, "scratch");
  const scratchExisted = existsSync(scratch);
  const written = [ROOT, scratch].flatMap((dir) =>
    SESSION_FILES.map((name) => {
      const file = join(dir, name);
      return { file, own: existsSync(file) ? readFileSync(file) : undefined };
    }),
  );
  t.after(async () => {
    await bash.stop();
    for (const { file, own } of written) {
      if (own) writeFileSync(file, own);
      else rmSync(file, { force: true });
    }
    if (!scratchExisted) rmSync(scratch, { recursive: true, force: true });
  });

  const session = blocks("## A session with curl", "console").flatMap(steps);
  assert.ok(session.length >= 20, `the curl session has ${session.length} steps`);
  const ids = idRenaming();
  const transcript = process.env.README_SESSION_OUT;
  if (transcript) writeFileSync(transcript, "");
  for (const { command, expected } of session) {
    const typed = command.replaceAll(README_API, api).replace(`HOOK_PORT=${README_HOOK_PORT}`, `HOOK_PORT=${hookPort}`);
    const tool = Object.entries(tools).find(([name]) => command.includes(`$${name}`))?.[1];
    const validating = tool !== undefined;
    if (tool?.absent) {
      t.diagnostic(`skipped "$ ${command}": validator absent (${tool.absent})`);
      continue;
    }
    // The validator compiles its rule sets on every call: a minute or more on a small machine.
    const { text, status } = await bash.run(typed, validating ? 300_000 : 30_000);
    if (transcript) appendFileSync(transcript, `$ ${command}\n${asReadme(text, ports).replace(/([^\n])$/, "$1\n")}`);
    assert.equal(status, 0, `$ ${command}\n${text}`);
    // Deliveries arrive at least once and in any order (as the README says under the session): the
    // receiver's lines as a set, a repeat (which it marks) counted once, each naming only ids shown before.
    const asSet = (lines) =>
      [...new Set(lines.split("\n").map((line) => line.replace(/ \(repeat\)$/, "")))].sort().join("\n");
    if (command.includes("receiver.log") && command.startsWith("until ")) {
      const received = ids.translate(asReadme(text, ports), `$ ${command}`);
      assert.equal(
        asSet(normalized(received, ports, false)),
        asSet(normalized(expected, ports, false)),
        `$ ${command}`,
      );
      continue;
    }
    assert.equal(normalized(text, ports), normalized(expected, ports), `$ ${command}`);
    ids.pair(asReadme(text, ports), expected, `$ ${command}`);
    const translated = ids.translate(asReadme(text, ports), `$ ${command}`);
    assert.equal(normalized(translated, ports, false), normalized(expected, ports, false), `$ ${command}`);
  }
  // What the session wrote stays out of the repository: its folder is git-ignored (scratch/).
  const cwd = (await bash.run("pwd")).text.trim();
  const git = (...args) => spawnSync("git", args, { cwd: ROOT, stdio: "ignore" }).status;
  if (git("rev-parse", "--is-inside-work-tree") !== 0) t.diagnostic("not a git work tree: ignored files not checked");
  else
    for (const name of SESSION_FILES.filter((name) => existsSync(join(cwd, name))))
      assert.equal(
        git("check-ignore", "-q", join(cwd, name)),
        0,
        `the session leaves ${relative(ROOT, join(cwd, name))} untracked in the repository: work in scratch/`,
      );

  // The client, saved as the README says and run in the same shell, TOKEN exported by the session.
  const [client] = blocks("## A TypeScript client", "ts").map((code) => code.replaceAll(README_API, api));
  const dir = join(ROOT, ".wrangler/readme-client");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "client.ts"), client);
  const setup = client.match(/^\/\/ Types: (.+)$/m)?.[1];
  assert.ok(setup, "the client says how to make its types");
  const types = await bash.run(`(cd ${dir} && ${setup})`, 60_000);
  assert.equal(types.status, 0, types.text);
  const checked = await bash.run(
    `npx tsc --noEmit --strict --skipLibCheck --target es2022 --module preserve --types node ${dir}/client.ts`,
    60_000,
  );
  assert.equal(checked.status, 0, `the client type-checks against the generated types:\n${checked.text}`);
  // Node strips types by default from 22.18; before, the README's flag (its warning goes to /dev/null).
  const [major, minor] = process.versions.node.split(".").map(Number);
  const node = major > 22 || minor >= 18 ? "node client.ts" : "node --experimental-strip-types client.ts 2>/dev/null";
  const ran = await bash.run(`(cd ${dir} && ${node})`);
  assert.equal(ran.status, 0, ran.text);
  const printed = client.match(/console\.log\(.*\); \/\/ e\.g\. (.+)$/m)?.[1];
  const pattern = printed.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/INV-\d{4}-\d{6}/, "INV-\\d{4}-\\d{6}");
  assert.match(ran.text.trim(), new RegExp(`^${pattern}$`));
});
