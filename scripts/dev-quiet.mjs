// Loaded into `npm run dev`'s wrangler (node --import): drops the binding tables (some 150 lines),
// "Using secrets defined in ..." and the `/cdn-cgi/local/scheduled` warning (it reaches the API Worker,
// not the crons'); everything else passes as written. After "Ready on", VOUCHER_DEV_SUMMARY once.
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`, "g");
const DROPPED = [
  /^Using secrets defined in /,
  /^Service bindings, Durable Object bindings, and Tail consumers connect/,
  /Scheduled Workers are not automatically triggered during local development/,
  /^\[wrangler:info\] ✨ Parsed \d+ valid header rules?\./,
];
const summary = process.env.VOUCHER_DEV_SUMMARY;
let inTable = false;
let summarized = false;

/** What of `text` (one write of wrangler's) reaches the terminal. */
function filtered(text) {
  const plain = text.replace(ANSI, "").trim();
  if (/ has access to the following bindings:$/.test(plain)) {
    inTable = true;
    return "";
  }
  if (inTable) {
    // A table ends with an empty line; its rows are `env.NAME ...` (with a value on a second line).
    if (plain === "") inTable = false;
    return "";
  }
  if (DROPPED.some((pattern) => pattern.test(plain))) return "";
  if (summary && !summarized && /Ready on /.test(plain)) {
    summarized = true;
    return `${text}${summary}\n`;
  }
  return text;
}

for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, ...rest) => {
    if (typeof chunk !== "string" && !(chunk instanceof Uint8Array)) return write(chunk, ...rest);
    const text = filtered(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    if (text === "") {
      const done = rest.find((arg) => typeof arg === "function");
      if (done) process.nextTick(done);
      return true;
    }
    return write(text, ...rest);
  };
}
