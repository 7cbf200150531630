import type { Context } from "hono";
import { RequestDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { sessionStart } from "./d1-bookmark";

/** The request's database session, opened on first use so that routes without queries pay nothing. */
export function database(c: Context<AppEnv>): RequestDatabase {
  let db = c.get("db");
  if (!db) {
    db = new RequestDatabase(c.env.DB, sessionStart(c));
    c.set("db", db);
  }
  return db;
}
