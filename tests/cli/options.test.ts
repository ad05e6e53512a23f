import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli } from './run-cli';

type Json = Record<string, unknown>;

/** The command line's mistakes: each a usage error (64) with a clear message, and one JSON document under --json. */
describe('CLI: command lines', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-options-'));
    db = path.join(dir, 'options.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('names every object has are no subcommands (the tables are plain objects)', () => {
    for (const group of ['events', 'orgs', 'keys', 'imports']) {
      for (const name of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
        const result = cli(db, group, name, '--json');
        assert.equal(result.code, 64, `${group} ${name}: ${result.stderr}`);
        const error = (result.json as { error: Json }).error;
        assert.equal(error.code, 'usage', `${group} ${name}`);
        assert.match(
          String(error.message),
          new RegExp(`^Unknown (sub)?command '${group} ${name}'`),
        );
        assert.doesNotMatch(result.stderr, /\n\s+at /, `${group} ${name}: a stack trace`);
      }
    }
  });
});
