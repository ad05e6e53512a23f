import BetterSqlite3 from 'better-sqlite3';

/** Time spent in one kind of SQLite statement while measured. */
export type StatementTime = {
  /** The table the statement writes (after INTO), else its first word: COMMIT, BEGIN, SELECT. */
  target: string;
  calls: number;
  ms: number;
};

const METHODS = ['run', 'all', 'get'] as const;

/** What a statement's time is filed under: `INSERT ... INTO term_postings (...)` is `term_postings`. */
function targetOf(source: string): string {
  const into = /\bINTO\s+(\w+)/i.exec(source);
  return into ? into[1]! : (/^\s*(\w+)/.exec(source)?.[1] ?? '?').toUpperCase();
}

/**
 * Where a SQLite writer's time goes: the wall time of every better-sqlite3
 * statement this thread runs until `stop`, by the table it writes. COMMIT
 * is the WAL write of the transaction's pages (and, when the WAL has grown
 * past the autocheckpoint size, the checkpoint). Benchmarks only: it wraps
 * the driver's Statement methods for every database of this thread, and
 * `stop` puts them back.
 */
export function measureStatements(): { stop(): StatementTime[] } {
  const probe = new BetterSqlite3(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<
    (typeof METHODS)[number],
    (this: BetterSqlite3.Statement, ...args: unknown[]) => unknown
  >;
  probe.close();
  const byTarget = new Map<string, StatementTime>();
  const originals = METHODS.map((name) => [name, prototype[name]] as const);
  for (const [name, original] of originals) {
    prototype[name] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const target = targetOf(this.source);
        let entry = byTarget.get(target);
        if (!entry) byTarget.set(target, (entry = { target, calls: 0, ms: 0 }));
        entry.calls++;
        entry.ms += performance.now() - started;
      }
    };
  }
  return {
    stop() {
      for (const [name, original] of originals) prototype[name] = original;
      return [...byTarget.values()].sort((a, b) => b.ms - a.ms);
    },
  };
}
