// A local webhook receiver, as a customer's system would be: it verifies each delivery with the
// endpoint's secret (Standard Webhooks, the `standardwebhooks` package), answers 204, or 400 to
// what it cannot verify (the service then retries), and prints one line per delivery.
//
//   WEBHOOK_SECRET=whsec_... npm run webhook:receive [-- --port 8788]
//
// Register it first: POST /webhook_endpoints {"url": "http://127.0.0.1:8788/", "event_types": ["*"]}
// (local URLs need ALLOW_LOCAL_WEBHOOKS=true, which .dev.vars.example sets) and take the `secret`
// from that answer: it is shown only then.
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";

const { values } = parseArgs({ options: { port: { type: "string", default: "8788" } } });
const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith("whsec_")) {
  console.error("Set WEBHOOK_SECRET to the endpoint's secret (whsec_...), as POST /webhook_endpoints answered it.");
  process.exit(2);
}
const webhook = new Webhook(secret);
const seen = new Set();

const server = createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    let event;
    try {
      event = webhook.verify(body, request.headers);
    } catch (error) {
      console.log(`refused  ${request.headers["webhook-id"] ?? "-"}: ${error.message}`);
      response.writeHead(400).end();
      return;
    }
    // Deliveries are at least once: the same webhook-id again is a repeat, done already.
    const repeat = seen.has(event.id) ? " (repeat)" : "";
    seen.add(event.id);
    // What the event is about: a card order or invoice by id and state, a billing profile by its customer.
    const about = event.data.id ? `${event.data.id} ${event.data.state}` : event.data.customer;
    console.log(`verified ${event.id} ${event.type} ${about}${repeat}`);
    response.writeHead(204).end();
  });
});
server.listen(Number(values.port), "127.0.0.1", () =>
  console.log(`receiving webhooks on http://127.0.0.1:${values.port}/`),
);
