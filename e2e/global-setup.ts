import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { startTestServer } from '../tests/helpers/server';
import { E2E_STATE_ENV, type E2eState } from './support/state';
import { FILTER_FIELDS } from '../lib/domain/filters';

function filterFields(doc: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const field of FILTER_FIELDS) {
    const value = doc[field];
    if (typeof value === 'string') fields[field] = value;
  }
  return fields;
}

/**
 * Starts the production server on a fresh, seeded database for the whole run
 * and tells the workers where it is (a JSON file named by an environment
 * variable). The returned function is Playwright's teardown.
 */
export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  const server = await startTestServer();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-e2e-'));
  const stateFile = path.join(stateDir, 'state.json');
  const state: E2eState = {
    baseUrl: server.baseUrl,
    databaseUrl: server.databaseUrl,
    orgId: server.orgId,
    otherOrgId: server.otherOrgId,
    keys: {
      member: server.keys.member,
      otherOrg: server.keys.otherOrg,
      readOnly: server.keys.readOnly,
      spare: server.keys.spare,
    },
    // The seeded events are the tests' independent expectations.
    events: server.events.org.map((event) => ({
      id: event.id,
      created: event.created,
      eventTypeName: event.eventTypeName,
      rawKeys: event.raw === null ? null : Object.keys(JSON.parse(event.raw) as object),
      fields: filterFields(JSON.parse(event.doc) as Record<string, unknown>),
    })),
  };
  fs.writeFileSync(stateFile, JSON.stringify(state));
  process.env[E2E_STATE_ENV] = stateFile;

  return async () => {
    await server.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  };
}
