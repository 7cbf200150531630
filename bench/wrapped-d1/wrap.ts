/**
 * A D1 binding farther away or less reliable than the local one: every call waits `delayMs` and fails
 * at random with the share `faultRate` (half before it reaches the database, half after it committed),
 * throwing what D1 throws when unreachable. It counts the calls and the *sequential* round trips
 * (BENCHMARKS.md, "Round trips").
 */

export interface WrapSettings {
  delayMs: number;
  faultRate: number;
  /** Draws in [0, 1): below faultRate / 2 fails before the call, below faultRate after it. */
  random?: () => number;
}

/** What one wrapped binding counted (failed calls included). */
export interface RoundTrips {
  /** Every call made. */
  calls: number;
  /** The longest chain of calls each started after the one before it had come back. */
  sequential: number;
}

/** What D1 throws when the database cannot be reached; "injected" tells it apart in the Worker's log. */
export const INJECTED_FAULT = "D1_ERROR: Network connection lost. (injected by bench/wrapped-d1)";

class Calls {
  /** The deepest chain among the calls that have come back. */
  private done = 0;

  constructor(
    private readonly settings: WrapSettings,
    private readonly trips: RoundTrips,
  ) {}

  async run<R>(call: () => Promise<R>): Promise<R> {
    this.trips.calls += 1;
    const depth = this.done + 1;
    this.trips.sequential = Math.max(this.trips.sequential, depth);
    try {
      if (this.settings.delayMs > 0) await scheduler.wait(this.settings.delayMs);
      const draw = this.settings.faultRate > 0 ? (this.settings.random ?? Math.random)() : 1;
      if (draw < this.settings.faultRate / 2) throw new Error(INJECTED_FAULT);
      const result = await call();
      if (draw < this.settings.faultRate) throw new Error(INJECTED_FAULT);
      return result;
    } finally {
      this.done = Math.max(this.done, depth);
    }
  }
}

class WrappedStatement {
  constructor(
    private readonly calls: Calls,
    readonly inner: D1PreparedStatement,
  ) {}

  bind(...values: unknown[]): WrappedStatement {
    return new WrappedStatement(this.calls, this.inner.bind(...values));
  }

  first<T>(column?: string): Promise<T | null> {
    return this.calls.run(() => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)));
  }

  all<T>(): Promise<D1Result<T>> {
    return this.calls.run(() => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.calls.run(() => this.inner.run<T>());
  }

  raw<T>(options?: { columnNames?: boolean }): Promise<unknown> {
    return this.calls.run(() => this.inner.raw<T>(options as { columnNames?: false }));
  }
}

/** D1's batch takes its own statements only: the wrappers are taken off first. */
const unwrapped = (statements: D1PreparedStatement[]) =>
  statements.map((s) => (s instanceof WrappedStatement ? s.inner : s));

function wrapSession(inner: D1DatabaseSession, calls: Calls): D1DatabaseSession {
  const session = {
    prepare: (query: string) => new WrappedStatement(calls, inner.prepare(query)),
    batch: <T>(statements: D1PreparedStatement[]) => calls.run(() => inner.batch<T>(unwrapped(statements))),
    getBookmark: () => inner.getBookmark(),
  };
  return session as unknown as D1DatabaseSession;
}

/** `binding` with every call delayed, counted in `trips`, and failed now and then, as `settings` say. */
export function wrapD1(
  binding: D1Database,
  settings: WrapSettings,
  trips: RoundTrips = { calls: 0, sequential: 0 },
): D1Database {
  const calls = new Calls(settings, trips);
  const wrapped = {
    prepare: (query: string) => new WrappedStatement(calls, binding.prepare(query)),
    batch: <T>(statements: D1PreparedStatement[]) => calls.run(() => binding.batch<T>(unwrapped(statements))),
    exec: (query: string) => calls.run(() => binding.exec(query)),
    dump: () => binding.dump(),
    withSession: (start?: D1SessionBookmark | D1SessionConstraint) => wrapSession(binding.withSession(start), calls),
  };
  return wrapped as unknown as D1Database;
}
