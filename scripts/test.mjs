// `npm test`: every check and test. The checks first (seconds, and a type error makes the rest moot),
// then two lanes at once, each a series of suites: the workerd suites (vitest) with the bundle and
// browser tests, and the Node suites that wait on other processes (the e-invoice validator's JVM,
// `wrangler dev`). Each lane keeps about one of two cores busy, so together they take about as long as
// the longer lane (BENCHMARKS.md, "How long npm test takes"). A suite's output is printed whole when it
// ends, so the two lanes' lines never interleave; the exit code is the first failure's, or 0.
import { spawn } from "node:child_process";

const CHECKS = ["check", "typecheck"];
const LANES = [
  ["test:workerd", "test:build", "test:browser"],
  ["test:einvoice", "test:payments", "test:dev"],
];

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Runs `npm run -s <script>`, its output kept; resolves to its exit code. */
function run(script) {
  const started = performance.now();
  const child = spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"], env: process.env });
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

/** A lane's suites one after another; a failed one stops its lane, not the other. */
async function lane(scripts) {
  const results = [];
  for (const script of scripts) {
    const result = await run(script);
    results.push(result);
    if (result.status !== 0) break;
  }
  return results;
}

const started = performance.now();
const results = await lane(CHECKS);
if (results.every(({ status }) => status === 0)) results.push(...(await Promise.all(LANES.map(lane))).flat());
console.log(`\n── npm test: ${seconds(started)}`);
for (const { script, status, took } of results) console.log(`   ${status === 0 ? "ok  " : "FAIL"} ${script} (${took})`);
process.exitCode = results.find(({ status }) => status !== 0)?.status ?? 0;
