import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli } from './run-cli';

const ORG = '6b1c2d3e4f5a6b7c8d9e0f01';
const ID = '65badef839e376b393db4aff';

/** What a terminal obeys rather than shows: C0, DEL, C1 and bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- control characters are the point
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('CLI: tables show the text of imported events, never obey it', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-tables-'));
    db = path.join(dir, 'tables.db');
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Tables', '--id', ORG).code, 0);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('events list: an imported username holding escapes, a newline, a carriage return and a bidi override is shown escaped, on its own row', () => {
    const username = 'evil\u001b[2J\u001b[31mroot\nfake row\r\u009b1m\u202egnp.exe';
    const file = path.join(dir, 'evil.ndjson');
    const event = {
      created: '2024-01-31T23:59:52Z',
      eventTypeName: 'JOINED_ORG',
      id: ID,
      isGlobalAdmin: false,
      orgId: ORG,
      username,
    };
    fs.writeFileSync(file, `${JSON.stringify(event)}\n`);
    const imported = cli(db, 'import', '--org', ORG, file);
    assert.equal(imported.code, 0, imported.stderr);

    const listed = cli(db, 'events', 'list', '--org', ORG);
    assert.equal(listed.code, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, UNPRINTABLE);
    const lines = listed.stdout.split('\n');
    const row = lines.find((line) => line.includes(ID));
    assert.ok(row, listed.stdout);
    assert.equal(
      row,
      `2024-01-31T23:59:52Z  JOINED_ORG  evil\\u001b[2J\\u001b[31mroot\\nfake row\\r\\u009b1m\\u202egnp.exe  ${ID}`,
    );
    // The header, the row, a blank line, the summary: no row drawn by the username.
    assert.equal(lines.filter((line) => line !== '').length, 3, listed.stdout);

    // --json is the API's body, the username as stored.
    const json = cli(db, 'events', 'list', '--org', ORG, '--json');
    assert.equal((json.json as { results: { username: string }[] }).results[0]!.username, username);
  });

  test('orgs list: a name of wide (CJK) or combined characters is padded by the columns it takes on screen, so the next column lines up', () => {
    const wide = path.join(dir, 'wide.db');
    // Each takes 6 columns on a terminal: 3 wide ideographs, 6 letters with
    // combining accents (12 code units), 6 plain letters.
    const names = ['東京都', 'Ame\u0301lie\u0301', 'Acmeco'];
    for (const name of names) assert.equal(cli(wide, 'orgs', 'create', '--name', name).code, 0);
    const listed = cli(wide, 'orgs', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    const gaps = names.map((name) => {
      const row = listed.stdout.split('\n').find((line) => line.includes(name));
      assert.ok(row, listed.stdout);
      return /^ */.exec(row.slice(row.indexOf(name) + name.length))![0].length;
    });
    assert.deepEqual(gaps, [2, 2, 2], listed.stdout);
  });
});
