// The static baseline with its request log line off (bench/log-off/service.ts says why).
import worker from "../static/worker.js";

console.log = () => {};

export default worker;
