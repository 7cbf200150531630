// A local webhook receiver: verifies each delivery (Standard Webhooks), answers 204, or 400 to what
// it cannot verify, and prints one line per delivery.
//   WEBHOOK_SECRET=whsec_... npm run webhook:receive [-- --port 8788]
// Register it first (POST /webhook_endpoints; local URLs need ALLOW_LOCAL_WEBHOOKS=true) and take its
// `secret` from that answer. A GET answers 200 `ready`. It ends on SIGINT, SIGTERM, or when its parent
// is gone (`kill` of npm's pid never reaches it under `sh -c`).
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";

let values;
try {
  ({ values } = parseArgs({ options: { port: { type: "string", default: "8788" } } }));
} catch (error) {
  console.error(
    `${error.message.split("\n")[0]}\nusage: WEBHOOK_SECRET=whsec_... npm run webhook:receive [-- --port 8788]`,
  );
  process.exit(2);
}
const port = Number(values.port);
if (!/^\d+$/.test(values.port) || port < 1 || port > 65535) {
  console.error(`--port must be a port from 1 to 65535, not ${JSON.stringify(values.port)}`);
  process.exit(2);
}
const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith("whsec_")) {
  console.error("Set WEBHOOK_SECRET to the endpoint's secret (whsec_...), as POST /webhook_endpoints answered it.");
  process.exit(2);
}
let webhook;
try {
  webhook = new Webhook(secret);
} catch (error) {
  console.error(`WEBHOOK_SECRET is not a webhook secret (${error.message}).`);
  process.exit(2);
}
const seen = new Set();

const server = createServer((request, response) => {
  if (request.method === "GET" || request.method === "HEAD") {
    response.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" }).end("ready\n");
    return;
  }
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
    // What the event is about: a resource by id and state, a payment with its invoice, a profile by customer.
    const about = event.data.id
      ? `${event.data.id} ${event.data.state ?? event.data.invoice_number}`
      : event.data.customer;
    console.log(`verified ${event.id} ${event.type} ${about}${repeat}`);
    response.writeHead(204).end();
  });
});
server.on("error", (error) => {
  console.error(
    error.code === "EADDRINUSE"
      ? `Port ${port} is in use (another receiver still running?): stop it, or give another with --port.`
      : `The receiver cannot listen on 127.0.0.1:${port}: ${error.message}`,
  );
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => console.log(`receiving webhooks on http://127.0.0.1:${port}/`));

function stop() {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 1000).unref();
}
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, stop);
// The parent gone (npm and its shell stopped): this process is an orphan nobody will stop.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop(), 200).unref();
