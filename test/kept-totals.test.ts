import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { keptTotal } from "../src/db/keyset";
import { keptLists } from "../src/db/schema";

// The kept totals are named in two places that no compiler sees together: the migrations' triggers
// (drizzle/*.sql), which keep them, and db/schema.ts keptLists, the only names keptTotal takes.
// This holds them to each other on the migrated database itself.
const triggerNames = async () => {
  const { results } = await env.DB.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all<{
    name: string;
    sql: string;
  }>();
  const names = new Set<string>();
  for (const { sql } of results) {
    if (!sql.includes("list_counts")) continue;
    // `INSERT INTO list_counts ... VALUES ('name', ...), ('name', ...)` and `... WHERE list = 'name'`.
    for (const [, name] of sql.matchAll(/\(\s*'([a-z_]+)'\s*,/g)) names.add(name!);
    for (const [, name] of sql.matchAll(/`list`\s*=\s*'([a-z_]+)'/g)) names.add(name!);
  }
  return [...names].sort();
};

describe("kept totals", () => {
  it("keptLists names exactly the lists whose totals the migrations' triggers keep", async () => {
    const names = await triggerNames();
    expect(names.length).toBeGreaterThan(0);
    expect(names).toEqual(Object.values(keptLists).sort());
  });

  it("takes no list name that is not a kept list", () => {
    // @ts-expect-error: a typo (card_order) is not a kept list: it does not compile.
    expect(() => keptTotal("card_order", "")).not.toThrow();
    expect(keptTotal(keptLists.cardOrders, "")).toBeDefined();
  });
});
