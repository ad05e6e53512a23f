import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cli } from '@/tests/cli/run-cli';
import { type PrivatePostgres, startPrivatePostgres } from '@/tests/helpers/private-postgres';

/**
 * DATABASE_URL's sslmode means what libpq (psql) makes it mean, against a
 * PostgreSQL of the test's own that takes TLS connections only, with a
 * self-signed certificate (as a managed PostgreSQL's own CA is to a client
 * that was not given it). Through the CLI, which opens the store as the
 * server does, so what pg prints at start is seen.
 */

let server: PrivatePostgres;
before(async () => {
  server = await startPrivatePostgres({ tls: true });
});
after(() => server?.destroy());

const withQuery = (query: string) => `${server.url}?${query}`;
const orgsList = (query: string) => cli(withQuery(query), 'orgs', 'list', '--json');

describe('DATABASE_URL sslmode, as libpq means it', () => {
  test('a plain connection is refused by this server: a connection that succeeds below is encrypted', () => {
    const plain = orgsList('sslmode=disable');
    assert.equal(plain.code, 1, plain.stderr);
    assert.match(plain.stderr, /no encryption/);
  });

  test("sslmode=require connects encrypted without checking the certificate, and pg's SECURITY WARNING is not printed", () => {
    const required = orgsList('sslmode=require');
    assert.equal(required.code, 0, required.stderr);
    assert.deepEqual(required.json, []);
    assert.equal(required.stderr, '');
  });

  test('sslmode=verify-ca checks the certificate against sslrootcert; without sslrootcert the URL is refused, naming it', () => {
    const checked = orgsList(`sslmode=verify-ca&sslrootcert=${server.certFile}`);
    assert.equal(checked.code, 0, checked.stderr);
    assert.equal(checked.stderr, '');
    const unchecked = orgsList('sslmode=verify-ca');
    assert.equal(unchecked.code, 64, unchecked.stderr);
    assert.match(
      (unchecked.json as { error: { message: string } }).error.message,
      /sslmode=verify-ca needs sslrootcert=FILE/,
    );
  });

  test('sslmode=verify-full still refuses a certificate no trusted CA signed, and takes it with that CA as sslrootcert', () => {
    const untrusted = orgsList('sslmode=verify-full');
    assert.equal(untrusted.code, 1, untrusted.stderr);
    assert.match(untrusted.stderr, /self[- ]signed certificate/);
    const trusted = orgsList(`sslmode=verify-full&sslrootcert=${server.certFile}`);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.equal(trusted.stderr, '');
  });
});
