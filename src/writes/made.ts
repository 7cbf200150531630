import { sql, type SQL } from "drizzle-orm";
import { newId } from "../domain/ids";

/**
 * A value only a write's batch makes, such as an invoice number it takes: the response and the events
 * carry `shown` where the value goes (it is a string, so a row or a schema's output holds it like the
 * value), and the commit puts `value` there, evaluated in the batch after the writes. The sent and the
 * stored response, and every event, then show the same value.
 */
export class Made {
  /** Unique to this value: a body holds it nowhere else. */
  readonly shown = `made:${newId()}`;
  constructor(readonly value: SQL<string>) {}
}

/** `text` (a serialized body or event) with each of `made` put in where it shows, as SQL evaluated in the batch. */
export function filled(text: string, made: readonly Made[] = []): SQL {
  let parts: (string | SQL)[] = [text];
  for (const { shown, value } of made) {
    const marker = JSON.stringify(shown);
    parts = parts.flatMap((part) =>
      typeof part === "string"
        ? part.split(marker).flatMap((chunk, i) => (i === 0 ? [chunk] : [sql`json_quote(${value})`, chunk]))
        : [part],
    );
  }
  if (parts.length === 1) return sql`${text}`;
  return sql.join(
    parts.filter((part) => part !== "").map((part) => (typeof part === "string" ? sql`${part}` : part)),
    sql` || `,
  );
}
