import { Column, fillPlaceholders, is, SQL, sql, type Placeholder } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { QueryBuilder } from "drizzle-orm/sqlite-core";

/** drizzle's builder, for a subquery of a statement. */
export const queryBuilder = new QueryBuilder();

// The reads are drizzle's prepared statements, prepared once per isolate and shape (on first use:
// `lazily`) with `sql.placeholder`s for each request's values: drizzle writes the SQL and maps the
// rows (its own result mapping, column by column, as `.all()` would), and the request's database
// (db/client.ts) runs them on its D1 session, several in one round trip. Writes go through drizzle's
// query builders as usual, in `db.batch`.

/**
 * The drizzle that prepares the reads: it is never given a statement to run (each request runs them
 * on its own session), so its client only has to take the SQL text.
 */
export const preparer = lazily(() => drizzle({ prepare: () => ({}) } as unknown as D1Database));

/** A value filled in per request. */
export const param = (name: string): Placeholder => sql.placeholder(name);

export interface CompiledRead<Row> {
  sql: string;
  params: unknown[];
  /** From a D1 result's rows (by column name) to the rows drizzle's select answers. */
  rows: (results: Record<string, unknown>[]) => Row[];
}

/** A drizzle prepared select, whose rows are `Row`. */
interface PreparedSelect<Row> {
  getQuery(): { sql: string; params: unknown[] };
  mapAllResult(result: unknown, isFromBatch?: boolean): unknown;
  all(values?: Record<string, unknown>): Promise<Row[]>;
}

/** A read from drizzle's prepared select (`preparer().select()...prepare()`), its rows mapped by drizzle. */
export function compile<Row>(prepared: PreparedSelect<Row>): CompiledRead<Row> {
  const { sql: text, params } = prepared.getQuery();
  // D1 answers a row as an object by column name, so two selected columns of one name would be one:
  // refused when the read is built (its first use), not mapped wrongly.
  const names = ((prepared as { fields?: { field: unknown }[] }).fields ?? []).map(({ field }) =>
    is(field, Column) ? field.name : is(field, SQL.Aliased) ? field.fieldAlias : undefined,
  );
  const twice = names.find((name, i) => name !== undefined && names.indexOf(name) !== i);
  if (twice !== undefined) throw new Error(`compile: two selected columns are named ${twice}; alias one`);
  return {
    sql: text,
    params,
    // As drizzle maps a batch's result: the row's values in column order, each field from its column.
    rows: (results) => prepared.mapAllResult({ results }, true) as Row[],
  };
}

/** A read whose statement names its columns as the fields of `Row` (db/keyset.ts): its rows are D1's, as they are. */
export const asRows = <Row>(query: { sql: string; params: unknown[] }): CompiledRead<Row> => ({
  ...query,
  rows: (results) => results as Row[],
});

/**
 * A read a route's load step asks for (http/route.ts): a compiled read with this request's values,
 * and what of its rows the handler gets.
 */
export interface Read<T> {
  read: CompiledRead<unknown>;
  values: Record<string, unknown>;
  pick: (rows: unknown[]) => T;
}

/** The reads of a load step, by name (an absent one is not read): the handler gets their results by the same names. */
export type Reads = Record<string, Read<unknown> | undefined>;
export type Loaded<R extends Reads> = { [K in keyof R]: R[K] extends Read<infer T> ? T : never };

/** The first row of a read, or undefined. */
export const one = <Row>(read: CompiledRead<Row>, values: Record<string, unknown>): Read<Row | undefined> => ({
  read,
  values,
  pick: (rows) => rows[0] as Row | undefined,
});

/** Every row of a read. */
export const every = <Row>(read: CompiledRead<Row>, values: Record<string, unknown>): Read<Row[]> => ({
  read,
  values,
  pick: (rows) => rows as Row[],
});

/** Compiled on first use, so that module start-up stays cheap. */
export function lazily<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

export const bindValues = (read: CompiledRead<unknown>, values: Record<string, unknown>): unknown[] =>
  fillPlaceholders(read.params, values);
