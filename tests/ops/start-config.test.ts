import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cliWith } from '@/tests/cli/run-cli';
import { runServerToExit } from '@/tests/helpers/server';

/** The server refuses a PORT it would misread, before it listens anywhere. */
test('PORT other than plain digits 0-65535 is refused at start, not read as another port', () => {
  // parseInt read 1e3 as 1, 3e3 as 3 and 3302abc as 3302; Number read 0x10 as 16.
  for (const port of ['1e3', '3e3', '0x10', '3302abc', '3302.9', '-1', '65536']) {
    const started = runServerToExit({ ...process.env, PORT: port, NODE_ENV: 'test' });
    assert.equal(started.status, 1, `PORT=${port}: ${started.stdout}${started.stderr}`);
    assert.match(
      started.stdout + started.stderr,
      new RegExp(`PORT must be an integer from 0 to 65535, got ${port.replace('.', '\\.')}`),
    );
  }
});

/**
 * A replica deployed with another ORG_EVENTS_SECRET (or none) opens none of
 * the sealed keys: it refused every client and counted each refusal in the
 * shared throttle, locking the right keys out everywhere. It refuses to start.
 */
test('a server whose ORG_EVENTS_SECRET opens none of the sealed keys refuses to start, naming why', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-sealed-'));
  try {
    const database = path.join(dir, 'sealed.db');
    const sealedWith = { ORG_EVENTS_SECRET: 'the-servers-secret-of-at-least-32-chars' };
    assert.equal(cliWith({ env: sealedWith }, database, 'orgs', 'create', '--name', 'S').code, 0);
    const orgId = (
      cliWith({ env: sealedWith }, database, 'orgs', 'list', '--json').json as {
        id: string;
      }[]
    )[0]!.id;
    const key = cliWith(
      { env: sealedWith },
      database,
      ...['keys', 'create', '--org', orgId, '--role', 'ORG_MEMBER'],
    );
    assert.equal(key.code, 0, key.stderr);
    for (const [secret, reason] of [
      ['another-secret-of-at-least-thirty-two-chars', /ORG_EVENTS_SECRET opens none of/],
      [
        undefined,
        /sealed, and neither ORG_EVENTS_SECRET nor the secret file .*sealed\.secret is here/,
      ],
    ] as const) {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', SERVE: 'api', PORT: '0' };
      env.DATABASE_URL = `file:${database}`;
      env.REDIS_URL = '';
      if (secret) env.ORG_EVENTS_SECRET = secret;
      else delete env.ORG_EVENTS_SECRET;
      const started = runServerToExit(env);
      assert.equal(started.status, 1, `${secret}: ${started.stdout}${started.stderr}`);
      assert.match(started.stderr, reason);
      assert.doesNotMatch(started.stdout, /ready on/);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Links are PUBLIC_BASE_URL and their path: a value without a scheme
 * (`events.example.com:443`, a URL of scheme `events.example.com`) or with a
 * query was accepted, and every link in every response was broken.
 */
test('PUBLIC_BASE_URL other than an http(s) URL without query or fragment is refused at start', () => {
  for (const base of ['events.example.com:443', 'localhost:3000', 'https://e.example.com?x=1']) {
    const started = runServerToExit({
      ...process.env,
      PUBLIC_BASE_URL: base,
      NODE_ENV: 'test',
      SERVE: 'api',
      PORT: '0',
    });
    assert.equal(started.status, 1, `PUBLIC_BASE_URL=${base}: ${started.stdout}${started.stderr}`);
    assert.match(started.stderr, /PUBLIC_BASE_URL must be an http:\/\/ or https:\/\/ URL/);
    assert.doesNotMatch(started.stdout, /ready on/);
  }
});

/**
 * An address the server cannot listen on (one not on this machine, a name
 * that does not resolve) ends the start naming HOSTNAME and PORT: Node's
 * own words ("listen EADDRNOTAVAIL …", "getaddrinfo ENOTFOUND …") named neither.
 */
test('a HOSTNAME the server cannot listen on ends the start naming HOSTNAME and PORT', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-listen-'));
  try {
    const started = runServerToExit({
      ...process.env,
      // TEST-NET-1 (RFC 5737): never this machine's.
      HOSTNAME: '192.0.2.1',
      NODE_ENV: 'test',
      SERVE: 'api',
      PORT: '0',
      DATABASE_URL: `file:${path.join(dir, 'listen.db')}`,
      REDIS_URL: '',
    });
    assert.equal(started.status, 1, `${started.stdout}${started.stderr}`);
    const failure = started.stderr.trim().split('\n').at(-1)!;
    assert.match(
      failure,
      /^> org-events failed to start: Cannot listen on 192\.0\.2\.1 port 0 \(HOSTNAME, PORT\): listen EADDRNOTAVAIL/,
    );
    assert.doesNotMatch(started.stdout, /ready on/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A URL the driver cannot read (a port that is not a number, a '%' that
 * starts no escape) failed at each attempt to connect: DATABASE_URL's was
 * waited on for DATABASE_WAIT_SECONDS as if the database were down, and
 * REDIS_URL's ended the start with a bare 'Invalid URL' or 'URI malformed'
 * (or, a database number that is none, crashed the server once it was up).
 */
test('a DATABASE_URL or REDIS_URL its client cannot read ends the start at once, naming the variable and not its password', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-urls-'));
  try {
    const sqlite = `file:${path.join(dir, 'urls.db')}`;
    const password = 'hunter2-not-shown';
    for (const [env, reason] of [
      [
        { DATABASE_URL: `postgres://u:${password}@127.0.0.1:abc/db` },
        /Invalid configuration: DATABASE_URL: .*its port is not a number/,
      ],
      [
        { DATABASE_URL: sqlite, REDIS_URL: `redis://:${password}%zz@127.0.0.1:6379` },
        /Invalid configuration: REDIS_URL: .*a % not followed by two hexadecimal digits/,
      ],
      [
        { DATABASE_URL: sqlite, REDIS_URL: `redis://:${password}@127.0.0.1:abc` },
        /Invalid configuration: REDIS_URL: .*its port is not a number/,
      ],
      [
        { DATABASE_URL: sqlite, REDIS_URL: `redis://:${password}@127.0.0.1:6379/abc` },
        /Invalid configuration: REDIS_URL: .*its path must be a database number/,
      ],
    ] as const) {
      const started = runServerToExit(
        {
          ...process.env,
          NODE_ENV: 'test',
          SERVE: 'api',
          PORT: '0',
          REDIS_URL: '',
          DATABASE_WAIT_SECONDS: '30',
          ...env,
        },
        { timeout: 25_000 },
      );
      const output = `${started.stdout}${started.stderr}`;
      assert.equal(started.status, 1, `${JSON.stringify(env)}: ${output}`);
      assert.match(started.stderr, reason);
      assert.doesNotMatch(output, /Waiting for the database|ready on/);
      assert.doesNotMatch(output, /hunter2/);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
