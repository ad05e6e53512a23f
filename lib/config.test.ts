import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, parseConfig } from './config';

function problem(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

test('whole-number settings take decimal digits alone: 0x10, 1e3, spaces, signs and fractions are refused', () => {
  for (const value of ['0x10', '1e3', ' 300', '300 ', '+300', '300.0', '0b1', '3_00']) {
    assert.match(
      problem({ NONCE_TTL_SECONDS: value }),
      /^Invalid configuration: NONCE_TTL_SECONDS: must be a whole number written in digits alone, from 5 to 86400$/,
      value,
    );
  }
  assert.equal(parseConfig({ NONCE_TTL_SECONDS: '300' }).NONCE_TTL_SECONDS, 300);
  assert.equal(parseConfig({ DATABASE_WAIT_SECONDS: '0' }).DATABASE_WAIT_SECONDS, 0);
  assert.equal(parseConfig({}).SESSION_TTL_SECONDS, 8 * 3600, 'unset: the default');
  assert.equal(
    parseConfig({ SESSION_TTL_SECONDS: '' }).SESSION_TTL_SECONDS,
    8 * 3600,
    'empty: unset',
  );
  assert.match(problem({ SESSION_TTL_SECONDS: '59' }), /SESSION_TTL_SECONDS: Too small/);
  assert.match(problem({ DATABASE_POOL_SIZE: '1001' }), /DATABASE_POOL_SIZE: Too big/);
});

test('DIGEST_REALM is printable ASCII and not blank: a header cannot carry 日本, and a blank realm names nothing', () => {
  for (const realm of [' ', '   ', '日本', 'Tab\there', 'Line\nbreak']) {
    assert.match(
      problem({ DIGEST_REALM: realm }),
      /DIGEST_REALM must be printable ASCII \(letters, digits, spaces, punctuation\) and not blank/,
      JSON.stringify(realm),
    );
  }
  for (const realm of ['MMS Public API', 'Acme "events" \\ realm', 'x']) {
    assert.equal(parseConfig({ DIGEST_REALM: realm }).DIGEST_REALM, realm);
  }
});

test('PUBLIC_BASE_URL with a user name or password is refused, without echoing the password', () => {
  for (const url of [
    'https://user:s3cret-pass@events.example.com',
    'https://user@events.example.com',
  ]) {
    const message = problem({ PUBLIC_BASE_URL: url });
    assert.match(message, /PUBLIC_BASE_URL must not carry a user name or password/);
    assert.doesNotMatch(message, /s3cret-pass/);
  }
  assert.equal(
    parseConfig({ PUBLIC_BASE_URL: 'https://events.example.com/' }).PUBLIC_BASE_URL,
    'https://events.example.com',
  );
});
