// Cloudflare Queues take at most 100 messages and 256 KB a sendBatch (and 128 KB a message): a larger
// set is sent in several batches, each within both limits, in order.
const MESSAGES_PER_BATCH = 100;
const BYTES_PER_BATCH = 250_000;
const UTF8 = new TextEncoder();

/** Sends every body, in batches the queue takes. */
export async function sendAll<T>(queue: Queue<T>, bodies: T[]): Promise<void> {
  let batch: MessageSendRequest<T>[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = UTF8.encode(JSON.stringify(body)).length;
    if (batch.length === MESSAGES_PER_BATCH || (batch.length > 0 && bytes + size > BYTES_PER_BATCH)) {
      await queue.sendBatch(batch);
      [batch, bytes] = [[], 0];
    }
    batch.push({ body });
    bytes += size;
  }
  if (batch.length > 0) await queue.sendBatch(batch);
}
