/**
 * The latency scenario's D1 (bench/latency.mjs): a binding that stands for a distant database, whose
 * every call (a statement's all/run/first/raw, a batch however many statements it holds, an exec)
 * first waits `delayMs`, and that counts a request's *sequential* round trips: a call started while
 * another is still under way rides with it, a call started after one has come back is one round trip
 * more. So the count is what the request waits for, and the same in every run, whatever else the
 * machine or the Worker (its queue consumer, a waitUntil) is doing meanwhile.
 */

export interface RoundTrips {
  /** Every call made. */
  calls: number;
  /** The longest chain of calls each started after the one before it had come back. */
  sequential: number;
}

class Counter {
  /** The deepest chain among the calls that have come back. */
  private done = 0;

  constructor(
    private readonly trips: RoundTrips,
    private readonly delayMs: number,
  ) {}

  async run<R>(call: () => Promise<R>): Promise<R> {
    this.trips.calls += 1;
    const depth = this.done + 1;
    this.trips.sequential = Math.max(this.trips.sequential, depth);
    try {
      if (this.delayMs > 0) await scheduler.wait(this.delayMs);
      return await call();
    } finally {
      this.done = Math.max(this.done, depth);
    }
  }
}

class Statement {
  constructor(
    private readonly counter: Counter,
    readonly inner: D1PreparedStatement,
  ) {}

  bind(...values: unknown[]): Statement {
    return new Statement(this.counter, this.inner.bind(...values));
  }

  first<T>(column?: string): Promise<T | null> {
    return this.counter.run(() => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)));
  }

  all<T>(): Promise<D1Result<T>> {
    return this.counter.run(() => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.counter.run(() => this.inner.run<T>());
  }

  raw<T>(options?: { columnNames?: boolean }): Promise<unknown> {
    return this.counter.run(() => this.inner.raw<T>(options as { columnNames?: false }));
  }
}

/** D1's batch takes its own statements only. */
const inner = (statements: D1PreparedStatement[]) => statements.map((s) => (s instanceof Statement ? s.inner : s));

/** `binding` with every call delayed by `delayMs` and counted into `trips`, its sessions' calls too. */
export function countedD1(binding: D1Database, delayMs: number, trips: RoundTrips): D1Database {
  const counter = new Counter(trips, delayMs);
  const session = (start?: D1SessionBookmark | D1SessionConstraint) => {
    const opened = binding.withSession(start);
    return {
      prepare: (query: string) => new Statement(counter, opened.prepare(query)),
      batch: <T>(statements: D1PreparedStatement[]) => counter.run(() => opened.batch<T>(inner(statements))),
      getBookmark: () => opened.getBookmark(),
    } as unknown as D1DatabaseSession;
  };
  return {
    prepare: (query: string) => new Statement(counter, binding.prepare(query)),
    batch: <T>(statements: D1PreparedStatement[]) => counter.run(() => binding.batch<T>(inner(statements))),
    exec: (query: string) => counter.run(() => binding.exec(query)),
    dump: () => binding.dump(),
    withSession: session,
  } as unknown as D1Database;
}
