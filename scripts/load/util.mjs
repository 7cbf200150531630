// Small helpers of the load run.

export const pick = (items) => items[Math.floor(Math.random() * items.length)];
export const chance = (p) => Math.random() < p;
export const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export function percentile(sorted, q) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function mapPool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** One async function at a time per lock (a promise chain). */
export function createLock() {
  let tail = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn);
    tail = run.catch(() => {});
    return run;
  };
}
