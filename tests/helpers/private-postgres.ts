import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp directory, a free
 * port, trust authentication), which the test may stop and start again: the
 * shared server on 5432 must never be restarted, other tests use it at the
 * same time. Run as root, the binaries run as the `postgres` user (the
 * server refuses to run as root); otherwise as the current user.
 */

/** Where initdb and pg_ctl live (Debian's PostgreSQL 15 unless TEST_PG_BIN_DIR says otherwise). */
export const PG_BIN_DIR = process.env.TEST_PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

export type PrivatePostgres = {
  port: number;
  /** With `tls`: the server's self-signed certificate (for 127.0.0.1 and localhost), its own CA. */
  certFile?: string;
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  /** The server's own log (pg_ctl -l). */
  log(): string;
  /** `pg_ctl stop -m fast`: disconnects every client, waits until the server is down. */
  stop(): Promise<void>;
  /** `pg_ctl start`, waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and deletes its directory. */
  destroy(): Promise<void>;
};

function asServerUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  }
}

export type PrivatePostgresOptions = {
  /**
   * TLS with a self-signed certificate (makeTlsOnly), and only TLS: pg_hba
   * accepts `hostssl` connections alone, so a client that connects at all
   * connected encrypted.
   */
  tls?: boolean;
};

export async function startPrivatePostgres(
  startOptions: PrivatePostgresOptions = {},
): Promise<PrivatePostgres> {
  for (const binary of ['initdb', 'pg_ctl']) {
    if (!fs.existsSync(path.join(PG_BIN_DIR, binary))) {
      throw new Error(
        `${binary} not found in ${PG_BIN_DIR}: this test needs the PostgreSQL server binaries (set TEST_PG_BIN_DIR to their directory)`,
      );
    }
  }
  const user = asServerUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-pg-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const port = await freePort();

  // The uid/gid options rather than runuser: one code path for root and
  // non-root. Asynchronous, so the test's load keeps flowing meanwhile.
  const processOptions = { cwd: dir, ...(user && { uid: user.uid, gid: user.gid }) };
  const run = (binary: string, args: string[]) =>
    promisify(execFile)(path.join(PG_BIN_DIR, binary), args, {
      ...processOptions,
      encoding: 'utf8',
    });
  const pgCtl = async (...args: string[]) => {
    try {
      await run('pg_ctl', ['-D', dataDir, ...args]);
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? '';
      throw new Error(`pg_ctl ${args.join(' ')} failed: ${stderr}\n${readLog()}`);
    }
  };
  const readLog = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');

  const certFile = path.join(dir, 'server.crt');
  const keyFile = path.join(dir, 'server.key');
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    ...(startOptions.tls
      ? ['-c ssl=on', `-c ssl_cert_file=${certFile}`, `-c ssl_key_file=${keyFile}`]
      : []),
    // A throwaway cluster: durability buys nothing and costs the test time.
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const start = () => pgCtl('-o', options, '-l', logFile, '-w', '-t', '30', 'start');
  const stop = () => pgCtl('-m', 'fast', '-w', '-t', '30', 'stop');
  // Synchronous: it also runs from process.on('exit').
  const stopNow = () => {
    try {
      execFileSync(
        path.join(PG_BIN_DIR, 'pg_ctl'),
        ['-D', dataDir, '-m', 'immediate', '-w', 'stop'],
        { ...processOptions, stdio: 'ignore' },
      );
    } catch {
      // not running
    }
  };
  const cleanUpOnExit = () => {
    stopNow();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUpOnExit);

  try {
    await run('initdb', [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    if (startOptions.tls) await makeTlsOnly(dataDir, certFile, keyFile, user);
    await start();
  } catch (error) {
    process.off('exit', cleanUpOnExit);
    cleanUpOnExit();
    throw error;
  }

  return {
    port,
    ...(startOptions.tls && { certFile }),
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    log: readLog,
    stop,
    start,
    destroy: () => {
      process.off('exit', cleanUpOnExit);
      cleanUpOnExit();
      return Promise.resolve();
    },
  };
}

/**
 * A self-signed certificate for 127.0.0.1 and localhost (pg checks a server
 * reached by its address under the name localhost): the server's, and the CA
 * a client may trust; its key readable by the server alone (PostgreSQL refuses it
 * otherwise), and a pg_hba.conf that takes TLS connections only.
 */
async function makeTlsOnly(
  dataDir: string,
  certFile: string,
  keyFile: string,
  user: { uid: number; gid: number } | undefined,
): Promise<void> {
  await promisify(execFile)('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    ...['-keyout', keyFile, '-out', certFile],
  ]);
  fs.chmodSync(keyFile, 0o600);
  const hba = path.join(dataDir, 'pg_hba.conf');
  fs.writeFileSync(hba, 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n');
  if (user) for (const file of [certFile, keyFile, hba]) fs.chownSync(file, user.uid, user.gid);
}
