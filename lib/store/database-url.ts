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
  if (/^postgres(ql)?:\/\//i.test(url)) {
    refuseUncheckableSslMode(url);
    return { engine: 'postgres', connectionString: url };
  }
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

/** A PostgreSQL URL's query parameters, where pg reads sslmode and sslrootcert. */
function queryOf(connectionString: string): URLSearchParams {
  const query = /\?([^#]*)/.exec(connectionString)?.[1] ?? '';
  try {
    return new URLSearchParams(query);
  } catch {
    return new URLSearchParams();
  }
}

/**
 * sslmode=verify-ca checks the server's certificate against sslrootcert.
 * Without one (libpq would read ~/.postgresql/root.crt) pg, reading sslmode
 * as libpq does (withLibpqSslModes), throws at each connection: refused
 * here, at start, saying what to write.
 */
function refuseUncheckableSslMode(connectionString: string): void {
  const query = queryOf(connectionString);
  if (query.get('sslmode') === 'verify-ca' && !query.get('sslrootcert')) {
    throw new DatabaseUrlError(
      "sslmode=verify-ca needs sslrootcert=FILE, the CA to check the server's certificate against (or use sslmode=verify-full to check it against the system's CAs)",
    );
  }
}

/** The sslmodes pg 8 reads as verify-full (with a SECURITY WARNING) unless told to read them as libpq does. */
const LIBPQ_SSL_MODES = new Set(['prefer', 'require', 'verify-ca']);

/**
 * The connection string pg is given: sslmode as libpq (psql, every other
 * client) means it. pg 8 reads prefer, require and verify-ca as verify-full
 * and prints a multi-line SECURITY WARNING at start saying so: the URL a
 * managed PostgreSQL hands out (sslmode=require, its certificate from a CA
 * of its own) was refused. pg's own switch, uselibpqcompat=true, gives
 * libpq's meaning: require encrypts without checking the certificate (as
 * verify-ca with sslrootcert), verify-ca checks it against sslrootcert,
 * verify-full against the system's CAs (or sslrootcert) and the host name.
 * A uselibpqcompat written in the URL is kept as written, as is every other
 * sslmode (disable, verify-full, and pg's own no-verify, read alike both ways).
 */
export function withLibpqSslModes(connectionString: string): string {
  const query = queryOf(connectionString);
  if (!LIBPQ_SSL_MODES.has(query.get('sslmode') ?? '') || query.has('uselibpqcompat')) {
    return connectionString;
  }
  // At the end: the query that holds sslmode is the URL's last part (a
  // postgres URL has no use for a #fragment).
  return `${connectionString}&uselibpqcompat=true`;
}
