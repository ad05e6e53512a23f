import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, getConfig } from '@/lib/config';
import { errorMessage } from '@/lib/domain/errors';
import type { EventStore } from '@/lib/store/types';

/**
 * The server secret signs nonces, seals sessions and seals the stored HA1
 * values (ha1-at-rest.ts). It comes from, in this order:
 * - ORG_EVENTS_SECRET;
 * - for a SQLite database in a file, a secret generated once into a file
 *   beside it (`data/org-events.db` → `data/org-events.secret`, 0600): a
 *   copy of the database file alone then grants nothing, with no set-up;
 * - else (PostgreSQL, an in-memory SQLite) one generated once and kept in
 *   the database, so every instance on it accepts the others' nonces and
 *   cookies; the HA1 values are then stored unsealed, and the server warns.
 */
export type SecretSource =
  | { kind: 'environment' }
  | { kind: 'file'; path: string }
  | { kind: 'database' };

/** What the secret depends on of a store: where its database lives. */
export type SecretHolder = Pick<EventStore, 'databaseFile'>;

/** Where a store's secret comes from (reads and creates nothing). */
export function secretSource(store: SecretHolder): SecretSource {
  if (getConfig().ORG_EVENTS_SECRET) return { kind: 'environment' };
  if (store.databaseFile !== null) {
    return { kind: 'file', path: secretFileBeside(store.databaseFile) };
  }
  return { kind: 'database' };
}

/**
 * The secret file of a SQLite database: its name with `.secret` in place
 * of `.db`, `.sqlite` or `.sqlite3`, not `org-events.db.secret`, so that
 * `cp org-events.db* elsewhere` (the database with its -wal and -shm) does
 * not take the secret along.
 */
export function secretFileBeside(databaseFile: string): string {
  const resolved = path.resolve(databaseFile);
  const stem = resolved.replace(/\.(db|sqlite3?)$/i, '');
  return `${stem}.secret`;
}

/** What names the secret in messages: the variable, or the file and the variable. */
export function secretName(source: SecretSource): string {
  return source.kind === 'file'
    ? `the secret file ${source.path} (ORG_EVENTS_SECRET is not set)`
    : 'ORG_EVENTS_SECRET';
}

/** The file's secret, by path: read (or made) once per process. */
const fileSecrets = new Map<string, string>();
const GENERATED_SECRET_BYTES = 32;
const MIN_SECRET_LENGTH = 32;

/**
 * The secret that seals and signs when it is not kept in the database:
 * ORG_EVENTS_SECRET, or the SQLite database's secret file, created on first
 * use. Undefined where the secret lives in the database (see SecretSource).
 */
export function configuredSecret(store: SecretHolder): string | undefined {
  const source = secretSource(store);
  if (source.kind === 'environment') return getConfig().ORG_EVENTS_SECRET;
  if (source.kind === 'database') return undefined;
  let secret = fileSecrets.get(source.path);
  if (secret === undefined) {
    secret = readSecretFile(source.path) ?? createSecretFile(source.path);
    fileSecrets.set(source.path, secret);
  }
  return secret;
}

/** Whether the database's secret file is there (false for other sources). */
export function secretFileExists(source: SecretSource): boolean {
  return source.kind === 'file' && fs.existsSync(source.path);
}

function readSecretFile(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read the secret file ${file}: ${errorMessage(error)}`);
  }
  const secret = text.trim();
  if (secret.length < MIN_SECRET_LENGTH || /\s/.test(secret)) {
    throw new ConfigError(
      `The secret file ${file} does not hold a secret (one line of at least ${MIN_SECRET_LENGTH} characters): ` +
        'restore it from where the database came, or set ORG_EVENTS_SECRET',
    );
  }
  return secret;
}

/**
 * Writes a new secret where none is, flushed before it is linked into
 * place: keys sealed with a secret that a crash then lost could never be
 * opened again. Linking fails where another process was first (a server and
 * a CLI command starting together); both then read that one.
 */
function createSecretFile(file: string): string {
  const secret = randomBytes(GENERATED_SECRET_BYTES).toString('hex');
  const directory = path.dirname(file);
  const pending = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  try {
    fs.mkdirSync(directory, { recursive: true });
    const descriptor = fs.openSync(pending, 'wx', 0o600);
    try {
      fs.writeSync(descriptor, `${secret}\n`);
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    try {
      fs.linkSync(pending, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(pending, { force: true });
    }
    const directoryDescriptor = fs.openSync(directory, 'r');
    try {
      fs.fsyncSync(directoryDescriptor);
    } finally {
      fs.closeSync(directoryDescriptor);
    }
  } catch (error) {
    throw new ConfigError(
      `Cannot create the secret file ${file} (the SQLite database's secret, as ORG_EVENTS_SECRET is not set): ${errorMessage(error)}`,
    );
  }
  const written = readSecretFile(file);
  if (written === undefined)
    throw new ConfigError(`The secret file ${file} vanished as it was made`);
  return written;
}

/**
 * The secret file's mode where others than its owner may read or write it
 * (ssh refuses such a private key; we warn), else null: whoever reads it
 * beside a copy of the database can call the API as any key. Only for a
 * file that is there; Windows has no such modes.
 */
export function looseSecretFileWarning(store: SecretHolder): string | null {
  const source = secretSource(store);
  if (source.kind !== 'file' || process.platform === 'win32') return null;
  let mode: number;
  try {
    // The ignore comment: the path is the running server's database's, not
    // one of the build's; followed from path.resolve, Turbopack traced the
    // whole project (tests, e2e, bench…) into every route that imports this.
    mode = fs.statSync(/* turbopackIgnore: true */ source.path).mode & 0o777;
  } catch {
    return null;
  }
  if ((mode & 0o077) === 0) return null;
  return (
    `The secret file ${source.path} is readable or writable by others than its owner (mode ` +
    `${mode.toString(8).padStart(4, '0')}): with it, a copy of the database grants every key. ` +
    `Run: chmod 600 ${source.path}`
  );
}

/**
 * Removes the `server_secret` row a SQLite database kept from before its
 * secret file: on a database in a file the secret is ORG_EVENTS_SECRET or
 * that file (secretSource), never the row, so nothing reads it any more.
 * PostgreSQL and an in-memory SQLite keep theirs: it is their secret. Told
 * by the database, not by this process's secretSource: a PostgreSQL server
 * or CLI run with ORG_EVENTS_SECRET removed the row that instances not yet
 * given the variable serve with, and the next of them to start made another
 * (their sessions and nonces no longer opened on one another).
 * True when one was removed.
 */
export async function dropUnusedDatabaseSecret(
  store: SecretHolder & Pick<EventStore, 'deleteSetting'>,
): Promise<boolean> {
  if (store.databaseFile === null) return false;
  return store.deleteSetting(DATABASE_SECRET_SETTING);
}

const DATABASE_SECRET_SETTING = 'server_secret';

/** The server's secret for this store: the configured one, else the one kept in the database. */
export async function loadServerSecret(store: EventStore): Promise<Buffer> {
  const secret =
    configuredSecret(store) ??
    (await store.getOrCreateSetting(DATABASE_SECRET_SETTING, () =>
      randomBytes(GENERATED_SECRET_BYTES).toString('hex'),
    ));
  return Buffer.from(secret, 'utf8');
}

/** Independent keys per purpose, so a nonce MAC can never open a session. */
export function deriveKey(
  secret: Buffer,
  purpose: 'digest-nonce' | 'session' | 'ha1-at-rest',
): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `org-events:${purpose}`, 32));
}

const MISSING_SECRET_WARNING = [
  '',
  '!!! ========================================================================== !!!',
  '!!! ORG_EVENTS_SECRET is not set.                                               !!!',
  "!!! The server secret is generated and kept in the database, and API keys' HA1 !!!",
  '!!! values are stored unencrypted: a copy of the database alone lets anyone     !!!',
  '!!! call the API as any key and forge dashboard sessions. Set ORG_EVENTS_SECRET !!!',
  '!!! (32+ random characters, e.g. `openssl rand -hex 32`) on every instance,     !!!',
  '!!! then re-encrypt the stored keys (`keys rehash`).                            !!!',
  '!!! ========================================================================== !!!',
  '',
].join('\n');

let warnedAboutMissingSecret = false;

/**
 * For the server's start: in production where the secret is kept in the
 * database (ORG_EVENTS_SECRET unset on PostgreSQL), prints one loud warning
 * (once per process) and returns it; the server keeps working. Null when
 * the secret is configured or in a file beside a SQLite database, or not
 * in production.
 */
export function warnIfSecretMissing(
  store: SecretHolder,
  production: boolean,
  print: (message: string) => void = console.warn,
): string | null {
  if (!production || secretSource(store).kind !== 'database') return null;
  if (!warnedAboutMissingSecret) {
    warnedAboutMissingSecret = true;
    print(MISSING_SECRET_WARNING);
  }
  return MISSING_SECRET_WARNING;
}
