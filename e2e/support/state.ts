import fs from 'node:fs';

/** What global setup hands the tests: where the server is and what it holds. */
export type E2eKey = { publicKey: string; privateKey: string };
export type E2eEvent = {
  id: string;
  created: number;
  eventTypeName: string;
  /** Top-level keys of the raw document, or null when the event has none. */
  rawKeys: string[] | null;
  /** Its filterable fields (lib/domain/filters.ts FILTER_FIELDS) that hold a string. */
  fields: Record<string, string>;
};
export type E2eState = {
  baseUrl: string;
  /** The running server's database, for tests that add events while a page is open. */
  databaseUrl: string;
  orgId: string;
  otherOrgId: string;
  keys: { member: E2eKey; otherOrg: E2eKey; readOnly: E2eKey; spare: E2eKey[] };
  /** The org's events, newest first. */
  events: E2eEvent[];
};

export const E2E_STATE_ENV = 'ORG_EVENTS_E2E_STATE';

let cached: E2eState | undefined;

export function readState(): E2eState {
  if (!cached) {
    const file = process.env[E2E_STATE_ENV];
    if (!file)
      throw new Error(`${E2E_STATE_ENV} is not set: run the suite with \`playwright test\``);
    cached = JSON.parse(fs.readFileSync(file, 'utf8')) as E2eState;
  }
  return cached;
}
