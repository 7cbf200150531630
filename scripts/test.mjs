// `npm test`: the two checks side by side, then the suites three at a time, longest first, all but the
// workerd suites at nice 10 (BENCHMARKS.md, "How long npm test takes"); each suite's output printed
// whole when it ends; the exit code is the first failure's.
import { spawn } from "node:child_process";
import { setPriority } from "node:os";

const CHECKS = ["check", "typecheck"];
const SUITES = ["test:workerd", "test:dev", "test:einvoice", "test:browser", "test:build", "test:payments"];
const SLOTS = 3;
/** The suite on the critical path, which keeps the normal priority. */
const CRITICAL = "test:workerd";

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Runs `npm run -s <script>`, its output kept; resolves to its exit code. */
function run(script, niced = false) {
  const started = performance.now();
  const child = spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
  // Set before npm starts the script (it takes longer than this to load), so every process under it inherits it.
  if (niced && child.pid !== undefined)
    try {
      setPriority(child.pid, 10);
    } catch {
      // not allowed here: the suite runs at the normal priority
    }
  const output = [];
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      process.stdout.write(
        `\n── npm run ${script}: ${status === 0 ? "passed" : `FAILED (${code ?? signal})`}, ${seconds(started)}\n`,
      );
      process.stdout.write(Buffer.concat(output));
      resolve({ script, status, took: seconds(started) });
    });
  });
}

/** `scripts` in order, at most `slots` at once; every one runs, whatever the others' outcome. */
async function pool(scripts, slots) {
  const queue = [...scripts];
  const results = [];
  const worker = async () => {
    while (queue.length > 0) {
      const script = queue.shift();
      results.push(await run(script, scripts === SUITES && script !== CRITICAL));
    }
  };
  await Promise.all(Array.from({ length: slots }, worker));
  return results;
}

const started = performance.now();
const results = await pool(CHECKS, CHECKS.length);
if (results.every(({ status }) => status === 0)) results.push(...(await pool(SUITES, SLOTS)));
console.log(`\n── npm test: ${seconds(started)}`);
for (const { script, status, took } of results) console.log(`   ${status === 0 ? "ok  " : "FAIL"} ${script} (${took})`);
process.exitCode = results.find(({ status }) => status !== 0)?.status ?? 0;
