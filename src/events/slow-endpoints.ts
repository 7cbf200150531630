// Webhook endpoints that let a fast-lane attempt run out (webhook-delivery.ts), remembered per
// isolate: their deliveries go straight to the slow lane for SLOW_FOR_MS, after which one fast-lane
// attempt shows whether they recovered. Memory, not D1: a cold isolate relearns it with one attempt
// of FAST_LANE_TIMEOUT_MS, which costs less than a write per delivery would.
const SLOW_FOR_MS = 5 * 60_000;
const REMEMBERED_AT_MOST = 1000;
const slowUntil = new Map<string, number>();

export function markSlow(endpointId: string, now = Date.now()): void {
  slowUntil.delete(endpointId);
  slowUntil.set(endpointId, now + SLOW_FOR_MS);
  if (slowUntil.size > REMEMBERED_AT_MOST) slowUntil.delete(slowUntil.keys().next().value!);
}

export function isSlow(endpointId: string, now = Date.now()): boolean {
  const until = slowUntil.get(endpointId);
  if (until === undefined) return false;
  if (until > now) return true;
  slowUntil.delete(endpointId);
  return false;
}
