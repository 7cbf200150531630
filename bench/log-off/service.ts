// The service with its request log line off, for `node bench/log-line.mjs` only (scripts/local-worker.mjs,
// option `main`; wrangler.toml still deploys src/index.ts). The line is still built, but console.log
// writes nothing: the one console.log on the paths the bench loads is the request log line
// (src/http/request-context.ts), so this takes away its trip from workerd's stdout to Node and nothing
// else. bench/log-off/static.js and raw-d1.js do the same to the baselines.
import service from "../../src/index";

console.log = () => {};

export default service;
