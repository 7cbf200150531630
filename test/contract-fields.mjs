// Read by vitest.config.ts (in Node), so that tests inside workerd can hold the response schemas
// against the interface document and the contract: the field lists of each resource, in order.
import { readFileSync } from "node:fs";

/** The first cells of the table under `heading` in the seed (its field names, in order). */
function seedTable(seed, heading) {
  const section = seed.slice(seed.indexOf(heading));
  const rows = section.split("\n").filter((line) => line.startsWith("| ")).slice(1);
  const fields = [];
  for (const row of rows) {
    const cell = row.split("|")[1].trim();
    if (cell === "Field") break;
    fields.push(cell);
  }
  return fields;
}

/** The backticked names of a CONTRACT sentence "<subject>, fields in this order: `a` (..), `b`, ...". */
function contractList(contract, subject) {
  const start = contract.indexOf(`${subject}, fields in this order:`);
  if (start < 0) return undefined;
  const text = contract.slice(start).split(":").slice(1).join(":");
  const names = [];
  let depth = 0;
  let expectName = true;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (depth === 0 && ch === "`" && expectName) {
      const end = text.indexOf("`", i + 1);
      names.push(text.slice(i + 1, end));
      i = end;
      expectName = false;
    } else if (depth === 0 && ch === ",") expectName = true;
    else if (depth === 0 && ch === ".") break;
  }
  return names;
}

/** @param {string} shared the steering repository's shared/ folder */
export function contractFields(shared) {
  const seed = readFileSync(`${shared}/seed/000_67108ece5f4317f7.txt`, "utf8");
  const contract = readFileSync(`${shared}/CONTRACT.md`, "utf8");
  return {
    invoice: seedTable(seed, "### 2.1 Invoice"),
    card_order: seedTable(seed, "### 2.2 Card order"),
    card_order_entry: contractList(contract, "Entry"),
    event: contractList(contract, "Event"),
    webhook_endpoint: contractList(contract, "answers\n  201 with the envelope holding the endpoint") ?? contractList(contract, "the endpoint"),
  };
}
