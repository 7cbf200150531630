import * as z from "zod/mini";
import { namedResponse } from "./registry";

// One definition per resource: its wire fields in their order, each with its schema and how a stored
// row shows it. From it come the response schema (the OpenAPI document's, the handlers' types, the
// tests' shapes), the mapping from a row, and the field list. A field is its same-named column
// (`created_at` shows `createdAt`) unless it says how it is computed from the row.

/** `created_at` → `createdAt`: the column a wire field shows. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** A wire field; `Out` is what it holds. The schema is built on first use: the Worker never parses its responses. */
interface Column<Out> {
  schema: () => z.ZodMiniType;
  out?: Out;
}
interface Computed<Row, Out> extends Column<Out> {
  from: (row: Row) => Out;
}

export interface Makers<Row> {
  /** A field shown as its same-named column holds it. */
  column: <S extends z.ZodMiniType>(schema: () => S) => Column<z.input<S>>;
  /** A field computed from the row. */
  from: <S extends z.ZodMiniType>(schema: () => S, from: (row: Row) => z.input<S>) => Computed<Row, z.input<S>>;
}

/** Each column field must name a column of the row: a typo, or a column renamed, fails to compile. */
type Checked<Row, F> = {
  [K in keyof F]: F[K] extends Computed<Row, unknown> ? F[K] : Camel<K & string> extends keyof Row ? F[K] : never;
};
type Shown<F> = { [K in keyof F]: F[K] extends Column<infer Out> ? Out : never };

const camel = (name: string) => name.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());

/**
 * A resource whose rows are `Row`, on the wire as the component `id` of the OpenAPI document:
 * `resource<Row>()(id, (f) => ({ field: f.column(...), other: f.from(...) }))`. `schema` is its response
 * schema, `show(row)` its body, `fields` its field names in their order.
 */
export const resource =
  <Row>() =>
  <F extends Record<string, Column<unknown>>>(
    id: string,
    define: (make: Makers<Row>) => F & NoInfer<Checked<Row, F>>,
    description?: string,
  ) => {
    const fields: Record<string, Column<unknown> & { from?: (row: Row) => unknown }> = define({
      column: (schema) => ({ schema }),
      from: (schema, from) => ({ schema, from }),
    });
    const names = Object.keys(fields);
    const shows = names.map((name) => fields[name]!.from ?? ((row: Row) => row[camel(name) as keyof Row]));
    const schema = namedResponse(
      id,
      () => z.strictObject(Object.fromEntries(names.map((name) => [name, fields[name]!.schema()]))),
      description,
    ) as unknown as z.ZodMiniType<Shown<F>, Shown<F>>;
    return {
      schema,
      fields: names,
      show(row: Row): Shown<F> {
        const body: Record<string, unknown> = {};
        for (let i = 0; i < names.length; i++) body[names[i]!] = shows[i]!(row);
        return body as Shown<F>;
      },
    };
  };

/** What a request body `B` fills of a row: each field in its same-named column, one left out (optional) as null. */
type ColumnsOf<B> = {
  [K in keyof B as Camel<K & string>]-?: undefined extends B[K] ? Exclude<B[K], undefined> | null : B[K];
};

/**
 * A parsed request body's fields in their same-named columns (`cost_center` → `costCenter`), each one it
 * leaves out as null: a field added to the body reaches its column without a handler's edit. The keys come
 * from the body's schema (a field left out is no key of the body); by then its parse has built it.
 */
export function columnsOf<B extends object>(schema: z.ZodMiniType<B>, body: B): ColumnsOf<B> {
  const inner = (s: z.ZodMiniType): z.ZodMiniType => {
    const zod = (s as unknown as { _zod: { def: { type: string }; innerType: z.ZodMiniType } })._zod;
    return zod.def.type === "lazy" ? inner(zod.innerType) : s;
  };
  const shape = (inner(schema) as unknown as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape;
  const columns: Record<string, unknown> = {};
  for (const name of Object.keys(shape)) columns[camel(name)] = (body as Record<string, unknown>)[name] ?? null;
  return columns as ColumnsOf<B>;
}
