import { env } from "cloudflare:workers";
import { beforeEach, expect, it } from "vitest";
import type { Camt053Entry } from "./support/camt053-builder";
import { token, unique } from "./support/api";
import { type CallRecord, FaultyD1 } from "./support/faulty-d1";
import {
  backOffice,
  credit,
  germanIban,
  invoiceOf,
  read,
  statementFile,
  transactionsOf,
  upload,
} from "./support/payments";
import { drainStatements, queued, statementsQueued } from "./support/queue";

// docs/api.md part 15, duplicates (issue 39's red team, medium): two statements processed at once, one
// with the entry's AcctSvcrRef and one without it, for the same transfer. Each reads it unknown; the
// one whose batch comes second must not store and allocate it again (the insert's claim,
// src/payments/rows.ts): its chunk reads again and counts it a duplicate.

beforeEach(() => {
  queued.take();
  statementsQueued.take();
});

/** Runs `hook` once, just before the first batch that stores a bank transaction reaches the database. */
class BeforeFirstStore extends FaultyD1 {
  private done = false;

  constructor(private readonly hook: () => Promise<void>) {
    super(env.DB);
  }

  override async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
    if (!this.done && kind === "batch" && sql.some((s) => s.startsWith('insert into "bank_transactions"'))) {
      this.done = true;
      await this.hook();
    }
    return super.call(kind, sql, run);
  }
}

const VERSIONS = ["camt.053.001.02", "camt.053.001.08"] as const;

const CASES = VERSIONS.flatMap((version) =>
  [true, false].flatMap((referencedFirst) => [true, false].map((named) => [version, referencedFirst, named] as const)),
);

it.each(CASES)(
  "%s: statements with and without AcctSvcrRef processed at once (the referenced one read first: %s; naming the invoice: %s): stored and allocated once",
  async (version, referencedFirst, named) => {
    const office = await backOffice();
    const auth = await token();
    const invoice = await invoiceOf(auth, "100.00");
    // Naming nothing, it is unmatched: no invoice's guard stands in for the claim.
    const referenced = credit("25.00", {
      endToEndId: unique("E2E"),
      debtorIban: germanIban(7_500_001),
      ...(named ? { unstructured: [invoice.number] } : {}),
    });
    const unreferenced: Camt053Entry = { ...referenced, accountServicerReference: undefined };
    const [first, second] = referencedFirst ? [referenced, unreferenced] : [unreferenced, referenced];
    const [a] = await upload(office, statementFile([first], version));
    const [messageA] = statementsQueued.take();
    const [b] = await upload(office, statementFile([second], version));
    const [messageB] = statementsQueued.take();
    // A has read the transfer unknown and is about to store it: B is processed whole meanwhile.
    const race = new BeforeFirstStore(async () => {
      statementsQueued.messages.push(messageB!);
      await drainStatements();
    });
    statementsQueued.messages.push(messageA!);
    const outcomes = await drainStatements({ DB: race.binding });
    expect(outcomes.every((o) => o.acked)).toBe(true);
    expect(await read(office, `/bank_statements/${b.id}`)).toMatchObject({
      state: "processed",
      matched_count: named ? 1 : 0,
      unmatched_count: named ? 0 : 1,
      duplicate_count: 0,
    });
    expect(await read(office, `/bank_statements/${a.id}`)).toMatchObject({
      state: "processed",
      matched_count: 0,
      unmatched_count: 0,
      duplicate_count: 1,
    });
    expect(await transactionsOf(office, a.id)).toStrictEqual([]);
    expect(await transactionsOf(office, b.id)).toHaveLength(1);
    expect(await read(auth, `/invoices/${invoice.id}/balance`)).toMatchObject({
      allocated_amount: named ? "25.00" : "0.00",
      open_amount: named ? "75.00" : "100.00",
    });
    const payments = await env.DB.prepare("SELECT count(*) AS n FROM payments WHERE invoice_id = ?")
      .bind(invoice.id)
      .first<{ n: number }>();
    expect(payments!.n).toBe(named ? 1 : 0);
  },
);
