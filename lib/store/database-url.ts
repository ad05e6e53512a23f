/**
 * Which engine a DATABASE_URL (or the CLI's --database) names, and where.
 * Its own module, free of the engines, so the configuration's check and the
 * CLI's usage errors can use it without loading a driver.
 */
export type DatabaseTarget =
  | { engine: 'sqlite'; filename: string }
  | { engine: 'postgres'; connectionString: string };

export const DATABASE_URL_FORMS =
  'file:PATH, sqlite:PATH, a file path, :memory:, postgres://... or postgresql://...';

/** A database URL of no supported form. */
export class DatabaseUrlError extends Error {
  constructor(message: string) {
    super(`${message} (supported: ${DATABASE_URL_FORMS})`);
    this.name = 'DatabaseUrlError';
  }
}

export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { engine: 'postgres', connectionString: url };
  if (url === ':memory:') return { engine: 'sqlite', filename: ':memory:' };
  const prefixed = /^(sqlite|file):(\/\/)?/i.exec(url);
  if (prefixed) {
    const filename = url.slice(prefixed[0].length);
    // SQLite would open a file named with it ('q.db?mode=ro'), not apply it.
    if (/[?#]/.test(filename)) {
      throw new DatabaseUrlError(
        `'${url}': a file: URL takes no query string or fragment; give the file's path alone`,
      );
    }
    if (!filename) throw new DatabaseUrlError(`'${url}' names no SQLite file`);
    return { engine: 'sqlite', filename };
  }
  // Any other scheme is a mistake (postgress://, mysql://), not a file path:
  // taken for one, it became a new SQLite file under the working directory.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme) {
    // The URL may carry a password (user:password@host): never printed.
    const shown = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1***@');
    throw new DatabaseUrlError(`unsupported scheme '${scheme[1]}://' in '${shown}'`);
  }
  if (!url) throw new DatabaseUrlError('an empty database URL names no SQLite file');
  return { engine: 'sqlite', filename: url };
}
