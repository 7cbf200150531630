import { eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import { DatabaseUnavailableError, WriteConflict } from "../errors";
import { bindValues, type CompiledRead, type Loaded, type Read, type Reads } from "./compiled";
import { failedGuard, guarded } from "./guards";
import type { cardOrders, invoices } from "./schema";

/** D1 cost of one request, summed from the `meta` of every result (D1 bills rows read). */
interface DatabaseUsage {
  queries: number;
  rowsRead: number;
  rowsWritten: number;
}

// Errors of the SQL or its parameters, and any other constraint failure: a bug here, not a retry.
const BUG = /SQLITE_|D1_TYPE_ERROR|D1_COLUMN_NOTFOUND/;

// A failed guard (db/guards.ts) is a concurrent write that got there first: a WriteConflict naming it.
function classify(error: unknown): Error {
  const message = String(error);
  const guard = failedGuard(message);
  if (guard) return new WriteConflict(guard);
  if (BUG.test(message)) return error instanceof Error ? error : new Error(message);
  // Anything else means the database could not serve the call (unreachable, overloaded, reset).
  return new DatabaseUnavailableError(error);
}

function record(usage: DatabaseUsage, result: D1Result): void {
  usage.queries += 1;
  usage.rowsRead += result.meta?.rows_read ?? 0;
  usage.rowsWritten += result.meta?.rows_written ?? 0;
}

async function metered<T extends D1Result>(usage: DatabaseUsage, call: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await call();
  } catch (error) {
    throw classify(error);
  }
  record(usage, result);
  return result;
}

class MeteredStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly usage: DatabaseUsage,
  ) {}

  bind(...values: unknown[]): MeteredStatement {
    return new MeteredStatement(this.inner.bind(...values), this.usage);
  }

  all<T>(): Promise<D1Result<T>> {
    return metered(this.usage, () => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return metered(this.usage, () => this.inner.run<T>());
  }

  // For drizzle's own reads (`orm.select()...`): D1's raw() drops `meta`, so rows come from all() and
  // are flattened in column order, exactly as drizzle's own batch path does. Selected column names
  // must therefore be unique (db/compiled.ts `compile` refuses a read that selects one twice).
  async raw<T = unknown[]>(): Promise<T[]> {
    const { results } = await this.all<Record<string, unknown>>();
    return results.map((row) => Object.values(row)) as T[];
  }
}

class MeteredSession {
  private session: D1DatabaseSession;
  /** The session before a write conflict moved reads to the primary: its bookmark until the new one has one. */
  private earlier?: D1DatabaseSession;

  constructor(
    private readonly binding: D1Database,
    start: D1SessionBookmark | D1SessionConstraint,
    readonly usage: DatabaseUsage,
  ) {
    this.session = binding.withSession(start);
  }

  prepare(query: string): MeteredStatement {
    return new MeteredStatement(this.session.prepare(query), this.usage);
  }

  async batch<T>(statements: MeteredStatement[]): Promise<D1Result<T>[]> {
    let results: D1Result<T>[];
    try {
      results = await this.session.batch<T>(statements.map((s) => s.inner));
    } catch (error) {
      const failure = classify(error);
      // A concurrent write won: it is on the primary, which a replica may not have caught up
      // with, and what this request reads next (why it lost, the winner's stored response) must
      // see it. (Single statements never write: every write goes through a batch.)
      if (failure instanceof WriteConflict) {
        this.earlier = this.session;
        this.session = this.binding.withSession("first-primary");
      }
      throw failure;
    }
    for (const result of results) record(this.usage, result);
    return results;
  }

  bookmark(): string | null {
    return this.session.getBookmark() ?? this.earlier?.getBookmark() ?? null;
  }
}

export type Database = DrizzleD1Database;

/**
 * The database as one request sees it: a D1 session (read replicas; a bookmark to read one's own
 * writes), metered, behind drizzle.
 */
export class RequestDatabase {
  readonly usage: DatabaseUsage = { queries: 0, rowsRead: 0, rowsWritten: 0 };
  readonly orm: Database;
  private readonly session: MeteredSession;

  constructor(binding: D1Database, start: D1SessionBookmark | D1SessionConstraint) {
    this.session = new MeteredSession(binding, start, this.usage);
    this.orm = drizzle(this.session as unknown as D1Database);
  }

  /** The latest bookmark of the session, for the `x-d1-bookmark` response header. */
  bookmark(): string | null {
    return this.session.bookmark();
  }

  /** Runs named reads in one round trip: each name gets what its read picks of its rows. */
  async load<R extends Reads>(reads: R): Promise<Loaded<R>> {
    const named = Object.entries(reads).filter((entry): entry is [string, Read<unknown>] => entry[1] !== undefined);
    if (named.length === 0) return {} as Loaded<R>;
    const results = await this.reads(named.map(([, { read, values }]) => this.statement(read, values)));
    return Object.fromEntries(
      named.map(([name, { read, pick }], i) => [name, pick(read.rows(results[i]!))]),
    ) as Loaded<R>;
  }

  /** Runs a compiled read with this request's values. */
  async read<Row>(read: CompiledRead<Row>, values: Record<string, unknown>): Promise<Row[]> {
    const [rows] = await this.reads([this.statement(read, values)]);
    return read.rows(rows!);
  }

  /** Runs compiled reads in one round trip (a list page and its total; an order and what it is checked against). */
  async readAll<const T extends readonly [CompiledRead<unknown>, Record<string, unknown>][]>(
    ...reads: T
  ): Promise<{ [K in keyof T]: T[K] extends [CompiledRead<infer Row>, unknown] ? Row[] : never }> {
    const results = await this.reads(reads.map(([read, values]) => this.statement(read, values)));
    return reads.map(([read], i) => read.rows(results[i]!)) as never;
  }

  /** One round trip. */
  private async reads(statements: MeteredStatement[]): Promise<Record<string, unknown>[][]> {
    const results =
      statements.length === 1
        ? [await statements[0]!.all<Record<string, unknown>>()]
        : await this.session.batch<Record<string, unknown>>(statements);
    return results.map((result) => result.results);
  }

  private statement(read: CompiledRead<unknown>, values: Record<string, unknown>): MeteredStatement {
    return this.session.prepare(read.sql).bind(...bindValues(read, values));
  }
}

type Statement = BatchItem<"sqlite">;

/**
 * Runs groups of statements as one atomic batch and answers each group's results under its name: a
 * write's results are read by what they are, never by where they stood.
 */
export async function batchNamed<G extends Record<string, Statement[]>>(
  orm: Database,
  groups: G,
): Promise<{ [K in keyof G]: unknown[] }> {
  const names = Object.keys(groups) as (keyof G)[];
  const results: unknown[] = await orm.batch(names.flatMap((name) => groups[name]!) as [Statement, ...Statement[]]);
  const named = {} as { [K in keyof G]: unknown[] };
  let at = 0;
  for (const name of names) {
    named[name] = results.slice(at, (at += groups[name]!.length));
  }
  return named;
}

/** The tables whose rows carry the optimistic `updated_at` guard. */
export type Versioned = typeof cardOrders | typeof invoices;

/**
 * Updates a row only if nobody changed it since it was read (optimistic concurrency on
 * `updated_at`, which advances on every change). Otherwise the guard `unchanged` fails and D1 rolls
 * back the whole batch: a WriteConflict for the caller (db/guards.ts).
 */
export function updateIfUnchanged<T extends Versioned>(
  orm: Database,
  table: T,
  current: { id: string; updatedAt: string },
  changes: { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL } & { updatedAt: string },
) {
  const updatedAt = guarded(sql`${table.updatedAt} = ${current.updatedAt}`, changes.updatedAt, "unchanged");
  return orm
    .update(table as typeof cardOrders)
    .set({ ...changes, updatedAt } as Partial<typeof cardOrders.$inferInsert>)
    .where(eq(table.id, current.id));
}
