import { errorMessage } from '@/lib/domain/errors';
import { parse as parsePostgresUrl } from 'pg-connection-string';

/**
 * Which engine a DATABASE_URL (or the CLI's --database) names, and where.
 * Its own module, free of the engines, so the configuration's check and the
 * CLI's usage errors can use it without loading a driver (pg's URL parser,
 * pg-connection-string, is no driver: the one pg reads the URL with).
 */
export type DatabaseTarget =
  | { engine: 'sqlite'; filename: string }
  | { engine: 'postgres'; connectionString: string };

export const DATABASE_URL_FORMS =
  'file:PATH, sqlite:PATH, a file path, :memory:, postgres://... or postgresql://...';

/** A database URL of no supported form. */
export class DatabaseUrlError extends Error {
  /** `listForms`: false for a URL of a supported form that is wrong within (its port, its escapes). */
  constructor(message: string, listForms = true) {
    super(listForms ? `${message} (supported: ${DATABASE_URL_FORMS})` : message);
    this.name = 'DatabaseUrlError';
  }
}

export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) {
    refuseUncheckableSslMode(url);
    refuseUnreadablePostgresUrl(url);
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
    throw new DatabaseUrlError(`unsupported scheme '${scheme[1]}://' in '${hideUserInfo(url)}'`);
  }
  if (!url) throw new DatabaseUrlError('an empty database URL names no SQLite file');
  return { engine: 'sqlite', filename: url };
}

/**
 * pg reads its URL at each connection, not before: one it cannot read (a
 * port that is not a number, a '%' starting no escape, an sslrootcert file
 * that is not there) threw at every attempt, taken for a database that is
 * down (retried for DATABASE_WAIT_SECONDS at start, a 503 on each request).
 * Read here with pg's own parser, as pg will be given it.
 */
function refuseUnreadablePostgresUrl(url: string): void {
  try {
    parsePostgresUrl(withLibpqSslModes(url));
  } catch (error) {
    throw new DatabaseUrlError(postgresUrlProblem(url, error), false);
  }
}

/** What pg's parser `error` means for `url`, in words that quote none of it (a password may lie anywhere in a malformed URL). */
function postgresUrlProblem(url: string, error: unknown): string {
  if (error instanceof URIError) return PERCENT_PROBLEM;
  const file = error as NodeJS.ErrnoException;
  if (typeof file.code === 'string' && typeof file.path === 'string') {
    // A file's path is no secret, and the engine's words name it.
    const query = queryOf(url);
    const parameter = ['sslrootcert', 'sslcert', 'sslkey'].find(
      (name) => query.get(name) === file.path,
    );
    return `cannot read the file its ${parameter ?? 'sslrootcert, sslcert or sslkey'} names (${file.message})`;
  }
  if ((error as { code?: unknown }).code === 'ERR_INVALID_URL') return urlSyntaxProblem(url);
  return errorMessage(error);
}

/**
 * `url` to quote in a message: what lies between its scheme and its last '@'
 * (a user name and password) shown as ***. Up to the last '@', not the first
 * '/': a password may hold '/' or '@' unencoded, and one holding '/' was
 * quoted whole.
 */
export function hideUserInfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:(?:\/\/)?).*@/is, '$1***@');
}

/** A user name, password or path whose '%' begins no escape: decodeURIComponent throws on it. */
export const PERCENT_PROBLEM =
  'its user name, password or path holds a % not followed by two hexadecimal digits: write a % in them as %25';

/**
 * Why `new URL` refuses a server URL (scheme://user:password@host:port/...),
 * said without quoting any of it: in a malformed URL the password may be
 * anywhere, taken for a host or a port. The host and port are what follows
 * the last '@' (a password may hold '/', ':' or '@' unencoded, never its
 * host): a hint, right for the usual mistakes.
 */
export function urlSyntaxProblem(url: string): string {
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const hostPort = afterScheme.slice(afterScheme.lastIndexOf('@') + 1).split(/[/?#]/)[0]!;
  const [, host = '', port] = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort) ?? [];
  // libpq's host list (h1:5432,h2:5432): pg connects to one host only.
  if (hostPort.includes(','))
    return 'not a valid URL: it names several hosts, and pg connects to one';
  if (port !== undefined && port !== '' && !(/^\d+$/.test(port) && Number(port) <= 65_535)) {
    return 'not a valid URL: its port is not a number from 0 to 65535';
  }
  if (!URL.canParse(`http://${host}/`) && host !== '') {
    return 'not a valid URL: its host is not a host name or an IP address';
  }
  return 'not a valid URL: a user name or password holding @ : / ? or # must have them percent-encoded (%40 %3A %2F %3F %23)';
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
