// The raw-d1 baseline with its request log line off (bench/log-off/service.ts says why).
import worker from "../raw-d1/worker.js";

console.log = () => {};

export default worker;
