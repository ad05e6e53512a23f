import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { countDeltas, KyselyStore } from './kysely-store';
import type { Database } from './schema';
import type { InsertResult, NewEvent } from './types';

/** The embedded default: one file, WAL, zero set-up. */
export class SqliteStore extends KyselyStore {
  readonly dialect = 'sqlite' as const;
  private readonly insertEvent: BetterSqlite3.Statement;
  private readonly bumpCount: BetterSqlite3.Statement;

  private constructor(private readonly sqlite: BetterSqlite3.Database) {
    super(new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }));
    this.insertEvent = sqlite.prepare(
      `INSERT INTO events (org_id, id, created, event_type, doc, raw) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, id) DO NOTHING`,
    );
    this.bumpCount = sqlite.prepare(
      `INSERT INTO event_counts (org_id, event_type, hour, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (org_id, event_type, hour) DO UPDATE SET n = n + excluded.n`,
    );
  }

  static async open(filename: string): Promise<SqliteStore> {
    if (filename !== ':memory:')
      fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
    const sqlite = new BetterSqlite3(filename);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 10000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('cache_size = -65536');
    sqlite.pragma('temp_store = MEMORY');
    // The schema must exist before statements are prepared.
    const bootstrap = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    await new (class extends KyselyStore {
      readonly dialect = 'sqlite' as const;
      constructor() {
        super(bootstrap);
      }
      protected insertBatch(): Promise<InsertResult> {
        throw new Error('bootstrap store cannot insert');
      }
    })().migrate();
    return new SqliteStore(sqlite);
  }

  /**
   * One synchronous transaction per batch: the events and their counters are
   * committed together or not at all, so a crash never leaves half a batch.
   */
  protected insertBatch(orgId: string, events: readonly NewEvent[]): Promise<InsertResult> {
    const run = this.sqlite.transaction((batch: readonly NewEvent[]) => {
      const inserted: NewEvent[] = [];
      for (const event of batch) {
        const { changes } = this.insertEvent.run(
          orgId,
          event.id,
          event.created,
          event.eventTypeName,
          event.doc,
          event.raw,
        );
        if (changes > 0) inserted.push(event);
      }
      for (const delta of countDeltas(inserted).values()) {
        this.bumpCount.run(orgId, delta.eventType, delta.hour, delta.n);
      }
      return inserted.length;
    });
    const inserted = run(events);
    return Promise.resolve({ inserted, skipped: events.length - inserted });
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.sqlite.open) this.sqlite.close();
  }
}
