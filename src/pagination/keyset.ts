import { getTableColumns, sql, type Placeholder, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { RequestDatabase } from "../db/client";
import { compile, param, type CompiledRead } from "../db/compiled";
import { listCounts, type CountedList } from "../db/schema";
import type { PageRequest } from "./query";

// Every list is newest first by (created_at, id) and read one of four ways, each on the list's
// index: by page number (OFFSET: page n pays for the rows it skips, as page numbers imply), after or
// before a row's key (a cursor: a page costs a page at any depth), or the last page (its size comes
// from the kept total). A page past the end reads no row but the total: the LIMIT is computed from
// it. Rows read: at most page_size + 2 by cursor; the total is one row of list_counts.

interface PageReads<Row> {
  keyOf: (row: Row) => SortKey;
  offset: CompiledRead<Row>;
  after: CompiledRead<Row>;
  before: CompiledRead<Row>;
  last: CompiledRead<Row>;
  total: CompiledRead<{ total: number | null }>;
}

/** A row's place in its list: (created_at, id). */
export type SortKey = [createdAt: string, id: string];

/** A list's source, for `pageReads`: its rows, filter and total, and its rows' sort key. */
interface ListSource<Row> {
  /** Whose rows the list shows: all its columns, or `columns` of it. */
  table: SQLiteTable;
  columns?: Record<string, SQLiteColumn>;
  /** What the rows are read from, when it is more than `table` (a join that scopes them). */
  from?: SQL;
  /** The list's rows: its scope and filters, with placeholders for the request's values. */
  where: SQL;
  /**
   * Where a cursor's page is read from, when less than `from` and `where` will do: a cursor is
   * signed for one customer's list, so it has shown the list is theirs (an order's entries).
   */
  seek?: { from?: SQL; where: SQL };
  /** The list's kept total as a scalar SQL expression (NULL: the list's owner does not exist). */
  total: SQL;
  createdAt: SQLiteColumn;
  id: SQLiteColumn;
}

const dialect = new SQLiteAsyncDialect();

/** The four page statements and the total statement of a list, built once (call it lazily). */
export function pageReads<Row>({ table, columns = getTableColumns(table), from, where, seek = { from, where }, total, createdAt, id }: ListSource<Row>): PageReads<Row> {
  const kept = sql`coalesce(${total}, 0)`;
  const key = sql`(${createdAt}, ${id})`;
  const anchor = sql`(${param("keyCreatedAt")}, ${param("keyId")})`;
  const newest = sql`${createdAt} DESC, ${id} DESC`;
  const oldest = sql`${createdAt} ASC, ${id} ASC`;
  // Each column under its field's name: D1's rows are then the rows, with no copy per row.
  const select = sql.join(Object.entries(columns).map(([field, column]) => sql`${column} AS ${sql.identifier(field)}`), sql`, `);
  const names = Object.fromEntries(Object.keys(columns).map((field) => [field, field]));
  const page = (source: SQL | undefined, condition: SQL, order: SQL, limit: SQL) => {
    const statement = sql`SELECT ${select} FROM ${source ?? table} WHERE ${condition} ORDER BY ${order} LIMIT ${limit}`;
    return compile<Row>({ toSQL: () => dialect.sqlToQuery(statement) }, names);
  };
  // A row's sort key, from the fields its two columns are selected as.
  const [createdAtField, idField] = [createdAt, id].map((column) => {
    const field = Object.keys(columns).find((name) => columns[name] === column);
    if (field === undefined) throw new Error(`pageReads: the list does not select ${column.name}`);
    return field;
  }) as [string, string];
  return {
    keyOf: (row) => [(row as Record<string, string>)[createdAtField]!, (row as Record<string, string>)[idField]!],
    offset: page(from, where, newest, sql`CASE WHEN ${param("offset")} < ${kept} THEN ${param("limit")} ELSE 0 END OFFSET ${param("offset")}`),
    after: page(seek.from, sql`${seek.where} AND ${key} < ${anchor}`, newest, sql`${param("limit")}`),
    before: page(seek.from, sql`${seek.where} AND ${key} > ${anchor}`, oldest, sql`${param("limit")}`),
    last: page(seek.from, seek.where, oldest, sql`((${kept} - 1) % ${param("limit")}) + 1`),
    total: compile<{ total: number | null }>({ toSQL: () => dialect.sqlToQuery(sql`SELECT ${total} AS "total"`) }, { total: "total" }),
  };
}

/** The kept total of a list (drizzle/0006_list_counts.sql), as `pageReads` takes it: 0 before its first row. */
export const keptTotal = (list: CountedList, scope: SQL | Placeholder | string, filter: SQL | Placeholder = sql`''`) =>
  sql`coalesce((SELECT ${listCounts.total} FROM ${listCounts} WHERE ${listCounts.list} = ${list} AND ${listCounts.scope} = ${scope} AND ${listCounts.filter} = ${filter}), 0)`;

/**
 * One page and the list's total in one round trip. `total` is undefined when the list's owner does
 * not exist (an order's entries, of an order that is not the customer's).
 */
export async function readPage<Row>(db: RequestDatabase, reads: PageReads<Row>, values: Record<string, unknown>, request: PageRequest) {
  const { seek } = request;
  const statement = seek ? reads[seek.mode] : reads.offset;
  const key = seek && seek.mode !== "last" ? seek.key : [null, null];
  const bound = { ...values, limit: request.pageSize, offset: request.offset, keyCreatedAt: key[0], keyId: key[1] };
  const [rows, [count]] = await db.readBoth([statement, bound], [reads.total, bound]);
  // Before a key and the last page are read oldest first; the list is newest first.
  if (seek?.mode === "before" || seek?.mode === "last") rows.reverse();
  // Whether rows follow, where a cursor knows better than the count (read now, it may have moved
  // since page 1 and skip rows): after a key, a full page may have more (its next may then be an
  // empty page: one row more per page would tell, against the page_size + 2 budget) and a short one
  // is the end; before a key, the page the cursor came from follows; the last page is last.
  const more = seek === undefined ? undefined : seek.mode === "after" ? rows.length === request.pageSize : seek.mode === "before";
  const edges = rows.length === 0 ? undefined : { first: reads.keyOf(rows[0]!), last: reads.keyOf(rows.at(-1)!), more };
  return { rows, edges, total: count?.total === null || count === undefined ? undefined : Number(count.total) };
}
