import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { translateStoreError, unavailable } from './errors';

/**
 * Wraps a Kysely dialect so that every failure meaning "the database cannot
 * answer now" leaves the store as StoreUnavailableError, whichever query,
 * transaction step or engine raised it. Failing to get a connection at all
 * always means so (refused, starting up, not accepting connections, pool
 * timeout), whatever the engine's reason.
 */
export function reportingUnavailable(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => new UnavailableReportingDriver(dialect.createDriver()),
  };
}

async function translated<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw translateStoreError(error);
  }
}

class ReportingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return translated(() => this.inner.executeQuery<R>(compiledQuery));
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(compiledQuery, chunkSize);
    } catch (error) {
      throw translateStoreError(error);
    }
  }
}

class UnavailableReportingDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return translated(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new ReportingConnection(await this.inner.acquireConnection());
    } catch (error) {
      throw unavailable(error);
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return translated(() => this.inner.beginTransaction(unwrap(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return translated(() => this.inner.commitTransaction(unwrap(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return translated(() => this.inner.rollbackTransaction(unwrap(connection)));
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.savepoint) throw new Error('The engine does not support savepoints');
    await translated(() => this.inner.savepoint!(unwrap(connection), name, compileQuery));
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.rollbackToSavepoint) throw new Error('The engine does not support savepoints');
    await translated(() => this.inner.rollbackToSavepoint!(unwrap(connection), name, compileQuery));
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.releaseSavepoint) throw new Error('The engine does not support savepoints');
    await translated(() => this.inner.releaseSavepoint!(unwrap(connection), name, compileQuery));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof ReportingConnection ? connection.inner : connection;
}
