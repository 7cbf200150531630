/**
 * A D1Database binding for tests that counts every database call the Worker makes and can make one
 * of them fail, as D1 does when it cannot be reached.
 *
 * A call is one round trip: a statement's all/run/first/raw, or a whole batch (one call however many
 * statements it holds). Calls are counted through `withSession(...)` (the app's only way in) and,
 * for completeness, through the binding's own prepare/batch/exec. `getBookmark` always works.
 */

/** What D1 throws when the database cannot be reached. */
export const UNREACHABLE = "D1_ERROR: Network connection lost.";

/**
 * `before`: the call never reaches the database (nothing of it happens).
 * `after`: the database executes the call, then the answer is lost on the way back.
 */
export type FaultMode = "before" | "after";

export interface CallRecord {
  /** 1-based position among the calls of this binding. */
  number: number;
  kind: "all" | "run" | "first" | "raw" | "batch" | "exec";
  /** The statement's SQL, or every statement's SQL for a batch. */
  sql: string[];
  failed: boolean;
}

export class FaultyD1 {
  readonly calls: CallRecord[] = [];
  private failAt: number | undefined;
  private mode: FaultMode = "before";

  constructor(readonly inner: D1Database) {}

  /** Makes call number `k` (1-based) fail; every other call passes through. */
  failCall(k: number, mode: FaultMode = "before"): this {
    this.failAt = k;
    this.mode = mode;
    return this;
  }

  /** How many calls were made so far. */
  get count(): number {
    return this.calls.length;
  }

  /** How many calls were made to fail. */
  get injected(): number {
    return this.calls.filter((call) => call.failed).length;
  }

  /** The binding to put into the Worker's env as `DB`. */
  get binding(): D1Database {
    const inner = this.inner;
    const binding = {
      prepare: (query: string) => new FaultyStatement(this, inner.prepare(query), query),
      batch: <T>(statements: D1PreparedStatement[]) => this.batch<T>(inner, statements),
      exec: (query: string) => this.call("exec", [query], () => inner.exec(query)),
      dump: () => inner.dump(),
      withSession: (start?: D1SessionBookmark | D1SessionConstraint) => this.session(inner.withSession(start)),
    };
    return binding as unknown as D1Database;
  }

  private session(inner: D1DatabaseSession): D1DatabaseSession {
    const session = {
      prepare: (query: string) => new FaultyStatement(this, inner.prepare(query), query),
      batch: <T>(statements: D1PreparedStatement[]) => this.batch<T>(inner, statements),
      getBookmark: () => inner.getBookmark(),
    };
    return session as unknown as D1DatabaseSession;
  }

  private batch<T>(target: { batch: D1Database["batch"] }, statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const unwrapped = statements.map((s) => (s instanceof FaultyStatement ? s.inner : s));
    const sql = statements.map((s) => (s instanceof FaultyStatement ? s.sql : "?"));
    return this.call("batch", sql, () => target.batch<T>(unwrapped));
  }

  /** @internal Runs one database call, or fails it if it is the chosen one. */
  async call<R>(kind: CallRecord["kind"], sql: string[], run: () => Promise<R>): Promise<R> {
    const number = this.calls.length + 1;
    const failed = number === this.failAt;
    this.calls.push({ number, kind, sql, failed });
    if (!failed) return run();
    if (this.mode === "after") await run();
    throw new Error(UNREACHABLE);
  }
}

class FaultyStatement {
  constructor(
    private readonly db: FaultyD1,
    readonly inner: D1PreparedStatement,
    readonly sql: string,
  ) {}

  bind(...values: unknown[]): FaultyStatement {
    return new FaultyStatement(this.db, this.inner.bind(...values), this.sql);
  }

  all<T>(): Promise<D1Result<T>> {
    return this.db.call("all", [this.sql], () => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.db.call("run", [this.sql], () => this.inner.run<T>());
  }

  first<T>(column?: string): Promise<T | null> {
    return this.db.call("first", [this.sql], () =>
      column === undefined ? this.inner.first<T>() : this.inner.first<T>(column),
    );
  }

  raw<T>(options?: { columnNames?: boolean }): Promise<unknown> {
    return this.db.call("raw", [this.sql], () => this.inner.raw<T>(options as { columnNames?: false }));
  }
}
