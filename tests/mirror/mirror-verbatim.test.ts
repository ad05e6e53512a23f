import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Variant } from '@/lib/config';
import { compactJson } from '@/lib/domain/json-text';
import { openStore } from '@/lib/store';
import { cli } from '@/tests/cli/run-cli';
import { DigestClient } from '@/tests/helpers/digest-client';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import {
  CASES,
  EDGES,
  ORG,
  P,
  RECORDED,
  SHUFFLED,
  served,
  shuffledServed,
} from '@/tests/helpers/verbatim-cases';

/**
 * Issue 11, "must show" 2, through the mirror: the recorded live responses
 * and the edge cases (big integers, `1.0`, integer-like keys in raw, unknown
 * units, nulls, a number as a string) are imported into a source server,
 * mirrored into a second server through the source's API, and the copy must
 * serve each of them byte for byte as the original record was written (its
 * own `self` link aside) — get and list, with and without raw — and exactly
 * as the source serves it. For both variants.
 */

/** Creates ORG in the server's database and lets its member key read it. */
async function addOrg(server: TestServer): Promise<void> {
  const store = await openStore(server.databaseUrl);
  try {
    await store.createOrg({ id: ORG, name: 'Recorded', created: 0 });
    await store.grantRole({
      orgId: ORG,
      apiKeyId: server.keys.member.apiKeyId,
      role: 'ORG_MEMBER',
      created: 0,
    });
  } finally {
    await store.close();
  }
}

function verbatimSuite(variant: Variant) {
  describe(`the recorded responses and edge cases through a mirror (${variant})`, () => {
    let source: TestServer;
    let copy: TestServer;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-mirror-verbatim-'));

    before(async () => {
      [source, copy] = await Promise.all([
        startTestServer({ variant, eventCount: 0 }),
        startTestServer({ variant, eventCount: 0 }),
      ]);
      await addOrg(source);
      await addOrg(copy);
      const file = path.join(dir, 'recorded.ndjson');
      fs.writeFileSync(
        file,
        `${[...CASES.map((c) => c.source), compactJson(SHUFFLED)].join('\n')}\n`,
      );
      const imported = cli(source.databaseUrl, 'import', '--org', ORG, file, '--json');
      assert.equal(imported.code, 0, imported.stderr);
      assert.equal((imported.json as { inserted: number }).inserted, CASES.length + 1);

      const mirrored = cli(
        copy.databaseUrl,
        'mirror',
        ...['--org', ORG, '--source', source.apiUrl, '--source-org', ORG],
        ...['--public-key', source.keys.member.publicKey],
        ...['--private-key', source.keys.member.privateKey, '--json'],
      );
      assert.equal(mirrored.code, 0, mirrored.stderr);
      const summary = mirrored.json as { copied: number; rejected: number };
      assert.equal(summary.copied, CASES.length + 1);
      assert.equal(summary.rejected, 0);
    });
    after(async () => {
      await copy?.stop();
      await source?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    for (const includeRaw of [false, true]) {
      test(`get on the copy serves every record as written and as the source does (includeRaw=${includeRaw})`, async () => {
        const sourceClient = new DigestClient(source.baseUrl, source.keys.member);
        const copyClient = new DigestClient(copy.baseUrl, copy.keys.member);
        for (const c of CASES) {
          const url = `${P}/orgs/${ORG}/events/${c.id}?includeRaw=${includeRaw}`;
          const [a, b] = [await sourceClient.request(url), await copyClient.request(url)];
          assert.equal(b.status, 200, c.name);
          assert.equal(b.text, served(c, includeRaw, copy.baseUrl), c.name);
          assert.equal(a.text, served(c, includeRaw, source.baseUrl), c.name);
        }
      });

      test(`the copy's list serves every record as written, newest first (includeRaw=${includeRaw})`, async () => {
        const copyClient = new DigestClient(copy.baseUrl, copy.keys.member);
        const response = await copyClient.request(
          `${P}/orgs/${ORG}/events?itemsPerPage=500&includeRaw=${includeRaw}`,
        );
        assert.equal(response.status, 200);
        const newestFirst = [RECORDED[1]!, RECORDED[0]!, ...EDGES];
        const results = [
          ...newestFirst.map((c) => served(c, includeRaw, copy.baseUrl)),
          shuffledServed(copy.baseUrl),
        ].join(',');
        assert.ok(
          response.text.includes(`"results":[${results}],"totalCount":${CASES.length + 1}}`),
          `list body:\n${response.text}`,
        );
        const sourceClient = new DigestClient(source.baseUrl, source.keys.member);
        const sourceList = await sourceClient.request(
          `${P}/orgs/${ORG}/events?itemsPerPage=500&includeRaw=${includeRaw}`,
        );
        assert.equal(
          response.text.split(copy.baseUrl).join('BASE'),
          sourceList.text.split(source.baseUrl).join('BASE'),
        );
      });
    }

    test('pretty=true on the copy keeps 9007199254740993 and 1.0 as written', async () => {
      const copyClient = new DigestClient(copy.baseUrl, copy.keys.member);
      const response = await copyClient.request(
        `${P}/orgs/${ORG}/events/${EDGES[0]!.id}?includeRaw=true&pretty=true`,
      );
      assert.match(response.text, /"cid": 9007199254740993,/);
      assert.match(response.text, /"b": \[\s*1\.0,/);
      assert.equal(compactJson(response.text), served(EDGES[0]!, true, copy.baseUrl));
    });
  });
}

verbatimSuite('hosted');
verbatimSuite('self-hosted');
