import { fillPlaceholders, getTableColumns, sql, type Placeholder } from "drizzle-orm";
import { QueryBuilder, type SQLiteTable } from "drizzle-orm/sqlite-core";

// The hot reads (list pages, their totals, single resources) are built by drizzle once per isolate
// and shape, then run as plain D1 statements with each request's values: building a query and
// mapping its rows through drizzle took more CPU per request than the rest of a list page
// (BENCHMARKS.md). Writes go through drizzle's query builders as usual.

export const queryBuilder = new QueryBuilder();

/** A value filled in per request. */
export const param = (name: string): Placeholder => sql.placeholder(name);

export interface CompiledRead<Row> {
  sql: string;
  params: unknown[];
  /** From a D1 result row (column names) to the row type (field names). */
  map: (raw: Record<string, unknown>) => Row;
}

/** Field name → result column name of a table's columns, for `compile`. */
export const columnsOf = (table: SQLiteTable): Record<string, string> =>
  Object.fromEntries(Object.entries(getTableColumns(table)).map(([field, column]) => [field, column.name]));

/** Builds a read once; `columns` names the result column behind each field of `Row`. */
export function compile<Row>(
  query: { toSQL(): { sql: string; params: unknown[] } },
  columns: Record<string, string>,
): CompiledRead<Row> {
  const { sql: text, params } = query.toSQL();
  const [fields, names] = [Object.keys(columns), Object.values(columns)];
  const named = fields.every((field, i) => field === names[i]);
  return {
    sql: text,
    params,
    // A read that names its columns as the fields (keyset.ts) gets its rows as they are.
    map: named
      ? (raw) => raw as Row
      : (raw) => {
          const row: Record<string, unknown> = {};
          for (let i = 0; i < fields.length; i++) row[fields[i]!] = raw[names[i]!];
          return row as Row;
        },
  };
}

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
