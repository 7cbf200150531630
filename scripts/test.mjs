// `npm test`: every check and test. The two checks first, side by side (seconds, and a type error makes
// the rest moot), then the suites three at a time, the longest first: the workerd suites (vitest, about
// 0.85 of a core for 3.5 minutes: the critical path), the dev-server files (each a `wrangler dev`, two at
// a time) and the e-invoice validator's JVMs start at once, and the short suites take the first slot
// that frees up. All but the workerd suites run at a lower priority (nice 10), so that they take the CPU
// the critical path leaves rather than slow it: on 2 cores the run then takes about the longer of the
// workerd suites and half the CPU time of all (BENCHMARKS.md, "How long npm test takes"). A suite's
// output is printed whole when it ends, so that no two suites' lines interleave; the exit code is the
// first failure's, or 0.
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
