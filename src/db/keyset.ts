import {
  and,
  asc,
  desc,
  eq,
  exists,
  getTableColumns,
  gt,
  gte,
  lt,
  lte,
  sql,
  type Placeholder,
  type SQL,
} from "drizzle-orm";
import { SQLiteAsyncDialect, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { RequestDatabase } from "./client";
import { asRows, param, queryBuilder as qb, type CompiledRead } from "./compiled";
import { invoices, listCounts, type KeptList } from "./schema";
import type { SortKey } from "../pagination/cursor";
import type { PageRequest } from "../pagination/query";

// Every list is newest first by (created_at, id), or ascending by another unique key (an invoice's
// lines by (invoice_id, position)), and read one of four ways, each on the list's
// index: by page number (page 1 from the top; page n by OFFSET, paying for the rows it skips, as page
// numbers imply), from a
// row's key on or before it (a cursor: a page costs a page at any depth), or the last page (its size
// comes from the kept total). A page past the end reads no row but the total: the LIMIT is computed
// from it. A page by number or from a key reads one row more than it shows, which says whether a
// next page exists and is where it starts; a seek lands on its key's row, so starting from the row
// read ahead (included) costs nothing more, where starting after the page's last row would read that
// row again. Rows read: at most page_size + 2 by cursor; the total is one row of list_counts.

interface PageReads<Row> {
  keyOf: (row: Row) => SortKey;
  first: CompiledRead<Row>;
  offset: CompiledRead<Row>;
  from: CompiledRead<Row>;
  before: CompiledRead<Row>;
  last: CompiledRead<Row>;
  total: CompiledRead<{ total: number | null }>;
}

/** `FROM owner INNER JOIN table ON on`. */
interface Through {
  owner: SQLiteTable;
  on: SQL;
}

/** A list's source, for `pageReads`: its rows, filter and total, and its rows' sort key. */
interface ListSource {
  /** Whose rows the list shows: all its columns, or `columns` of it. */
  table: SQLiteTable;
  columns?: Record<string, SQLiteColumn>;
  /** What scopes the rows, when more than `table` does: its owner, read first and joined to `table` `on`. */
  from?: Through;
  /** The list's rows: its scope and filters, with placeholders for the request's values. */
  where: SQL;
  /**
   * Where a cursor's page is read from, when less than `from` and `where` will do: a cursor is
   * signed for one customer's list, so it has shown the list is theirs (an order's entries).
   */
  seek?: { from?: Through; where: SQL };
  /** The list's kept total as a scalar SQL expression (NULL: the list's owner does not exist). */
  total: SQL;
  /** The rows' sort key: (created_at, id), newest first, unless `ascending`. An index must serve it. */
  key: [SQLiteColumn, SQLiteColumn];
  ascending?: boolean;
}

const dialect = new SQLiteAsyncDialect();

/** The four page statements and the total statement of a list, built once (call it lazily). */
export function pageReads<Row>({
  table,
  columns = getTableColumns(table),
  from,
  where,
  seek = { from, where },
  total,
  key: [first, second],
  ascending = false,
}: ListSource): PageReads<Row> {
  // Templates where drizzle has no builder: coalesce, and the row values a key is compared as.
  const kept = sql`coalesce(${total}, 0)`;
  const key = sql`(${first}, ${second})`;
  const anchor = sql`(${param("keyCreatedAt")}, ${param("keyId")})`;
  // The list's order, and the reverse for reading back from a key or from the end.
  const [down, up] = [
    [desc(first), desc(second)],
    [asc(first), asc(second)],
  ];
  const [inOrder, reversed] = ascending ? [up, down] : [down, up];
  const [onOrAfter, before] = ascending ? [gte, lt] : [lte, gt];
  // Each column under its field's name: D1's rows are then the rows, with no copy per row.
  const selection = Object.fromEntries(
    Object.entries(columns).map(([field, column]) => [field, sql`${column}`.as(field)]),
  );
  const page = (source: Through | undefined, condition: SQL, order: SQL[], limit: SQL, offset?: Placeholder) => {
    const rows = source
      ? qb.select(selection).from(source.owner).innerJoin(table, source.on).$dynamic()
      : qb.select(selection).from(table).$dynamic();
    // drizzle writes `limit ${limit}` whatever the limit is: here an expression of the kept total.
    const query = rows
      .where(condition)
      .orderBy(...order)
      .limit(limit as unknown as Placeholder);
    return asRows<Row>((offset ? query.offset(offset) : query).toSQL());
  };
  // A row's sort key, from the fields its two columns are selected as.
  const [firstField, secondField] = [first, second].map((column) => {
    const field = Object.keys(columns).find((name) => columns[name] === column);
    if (field === undefined) throw new Error(`pageReads: the list does not select ${column.name}`);
    return field;
  }) as [string, string];
  return {
    keyOf: (row) => [(row as Record<string, string>)[firstField]!, (row as Record<string, string>)[secondField]!],
    // Page 1 skips nothing, so its LIMIT needs no look at the total.
    first: page(from, where, inOrder, sql`${param("limit")}`),
    // The LIMITs computed from the total are templates: drizzle has no builder for CASE or arithmetic.
    offset: page(
      from,
      where,
      inOrder,
      sql`CASE WHEN ${param("offset")} < ${kept} THEN ${param("limit")} ELSE 0 END`,
      param("offset"),
    ),
    from: page(seek.from, and(seek.where, onOrAfter(key, anchor))!, inOrder, sql`${param("limit")}`),
    before: page(seek.from, and(seek.where, before(key, anchor))!, reversed, sql`${param("limit")}`),
    last: page(seek.from, seek.where, reversed, sql`((${kept} - 1) % ${param("limit")}) + 1`),
    // A template: drizzle's select needs a FROM, and the total is one scalar of no table.
    total: asRows<{ total: number | null }>(dialect.sqlToQuery(sql`SELECT ${total} AS "total"`)),
  };
}

/**
 * The kept total of a list, named by its entry in db/schema.ts `keptLists` (as its triggers name it),
 * as `pageReads` takes it: 0 before its first row.
 */
export const keptTotal = (list: KeptList, scope: SQL | Placeholder | string, filter: SQL | Placeholder | string = "") =>
  sql`coalesce(${qb
    .select({ total: listCounts.total })
    .from(listCounts)
    .where(and(eq(listCounts.list, list), eq(listCounts.scope, scope), eq(listCounts.filter, filter)))}, 0)`;

/**
 * The kept total of an invoice's own list (its payments, deliveries or reminders, counted per invoice),
 * or NULL when the invoice is not the customer's: its pages show not found. CASE is a template: drizzle
 * has no builder for it.
 */
export const invoiceListTotal = (list: KeptList) =>
  sql`CASE WHEN ${exists(
    qb
      .select({ one: sql`1` })
      .from(invoices)
      .where(and(eq(invoices.id, param("invoice")), eq(invoices.customerId, param("customer")))),
  )} THEN ${keptTotal(list, param("invoice"))} ELSE NULL END`;

/**
 * One page and the list's total in one round trip. `total` is undefined when the list's owner does
 * not exist (an order's entries, of an order that is not the customer's).
 */
export async function readPage<Row>(
  db: RequestDatabase,
  reads: PageReads<Row>,
  values: Record<string, unknown>,
  request: PageRequest,
) {
  const { seek } = request;
  const statement = seek ? reads[seek.mode] : request.offset === 0 ? reads.first : reads.offset;
  const key = seek && seek.mode !== "last" ? seek.key : [null, null];
  const readsAhead = seek === undefined || seek.mode === "from";
  const bound = {
    ...values,
    limit: request.pageSize + (readsAhead ? 1 : 0),
    offset: request.offset,
    keyCreatedAt: key[0],
    keyId: key[1],
  };
  const [rows, [count]] = await db.readAll([statement, bound], [reads.total, bound]);
  const ahead = readsAhead && rows.length > request.pageSize ? rows.pop() : undefined;
  // Before a key and the last page are read in reverse.
  if (seek?.mode === "before" || seek?.mode === "last") rows.reverse();
  // Where the next page starts, if rows follow: the row read ahead (so a full last page has no next,
  // docs/api.md part 4), or, for a page read before a key, that key: the page the cursor came from. The
  // rows say it, not the count, which may have moved since page 1. The last page is last. (As with
  // any keyset, a row written later with a key between this page's last row and the row read ahead,
  // which takes the same created_at to the millisecond, is not shown on the way.)
  const next = ahead ? reads.keyOf(ahead) : seek?.mode === "before" ? seek.key : undefined;
  const edges = rows.length === 0 ? undefined : { first: reads.keyOf(rows[0]!), next };
  return { rows, edges, total: count?.total === null || count === undefined ? undefined : Number(count.total) };
}
