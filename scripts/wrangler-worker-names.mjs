// Loaded into a multi-Worker `wrangler dev` (node --import): wrangler 4.164 prefixes a `[build]`
// Worker's console lines `[undefined]`; this puts its top-level `name` back (TOML configs, one such
// Worker only).
import { readFileSync } from "node:fs";

const configs = [];
const argv = process.argv;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--config" || argv[i] === "-c") configs.push(argv[++i]);
  else if (argv[i]?.startsWith("--config=")) configs.push(argv[i].slice("--config=".length));
}

const unnamed = [];
if (configs.length > 1) {
  for (const config of configs) {
    let toml;
    try {
      toml = readFileSync(config, "utf8");
    } catch {
      continue; // wrangler says so itself
    }
    const topLevel = toml.split(/^\[/m)[0];
    const name = topLevel.match(/^name\s*=\s*"([^"]+)"/m)?.[1];
    const build = toml.match(/^\[build\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m)?.[1];
    if (name && build && /^command\s*=/m.test(build)) unnamed.push(name);
  }
}

if (unnamed.length === 1) {
  const named = `[${unnamed[0]}]`;
  // At the start of a line, after wrangler's colour codes (ESC [ ... m), if any.
  const PREFIX = new RegExp(`(^|\n)((?:${String.fromCharCode(27)}\\[[0-9;]*m)*)\\[undefined\\]`, "g");
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    if (typeof chunk === "string") return write(chunk.replace(PREFIX, `$1$2${named}`), ...rest);
    if (
      chunk instanceof Uint8Array &&
      Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).includes("[undefined]")
    )
      return write(Buffer.from(chunk).toString("utf8").replace(PREFIX, `$1$2${named}`), ...rest);
    return write(chunk, ...rest);
  };
}
