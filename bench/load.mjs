// Load over loopback with autocannon, and the statistics run.mjs prints.
import autocannon from "autocannon";

/**
 * @typedef {{ url: string, method?: string, headers?: Record<string,string>, body?: string }} Target
 * @typedef {{ url: string, result: object, seconds: number, requests: number }} Round
 */

/** One timed run against one target; every answer that is not 2xx counts as a failure. */
export async function loadRound(target, { seconds, connections }) {
  const result = await autocannon({ ...target, duration: seconds, connections, skipAggregateResult: true });
  const failed = result.non2xx + result.errors;
  if (failed > 0)
    throw new Error(
      `${target.method ?? "GET"} ${target.url}: ${failed} of ${result.totalRequests} requests failed ` +
        `(${JSON.stringify(result.statusCodeStats)})`,
    );
  // Requests still in flight when the time is up are cut off: count what completed.
  return {
    url: target.url,
    result,
    seconds: (result.finish - result.start) / 1000,
    requests: result.totalCompletedRequests,
  };
}

/**
 * The targets take turns, A B A B ... (or A B C A B C ...), after one unmeasured warm-up each (JIT,
 * caches), so that a machine that gets busier or quieter during the run affects all alike.
 * @param {Record<string, Target>} targets by name, e.g. { service, baseline }
 * @returns {Promise<Record<string, Round[]>>} the measured rounds of each, by the same names
 */
export async function alternate(targets, { rounds, seconds, warmup, connections }) {
  for (const target of Object.values(targets)) await loadRound(target, { seconds: warmup, connections });
  const measured = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, target] of Object.entries(targets))
      measured[name].push(await loadRound(target, { seconds, connections }));
  }
  return measured;
}

/** Throughput over all rounds; latency percentiles of all requests of all rounds together. */
export function summarize(rounds) {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  const { latency } = autocannon.aggregateResult(
    rounds.map((r) => r.result),
    { url: rounds[0].url },
  );
  return {
    rps: requests / seconds,
    p50: latency.p50,
    p99: latency.p99,
    requests,
    perRound: rounds.map((r) => r.requests / r.seconds),
  };
}
