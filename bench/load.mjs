// Load over loopback with autocannon, and the statistics run.mjs prints.
import autocannon from "autocannon";

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

/** The targets (by name) take turns, A B A B ..., after one warm-up each, so the machine's drift hits all alike. */
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
