/**
 * The data half of `npm run demo` (scripts/demo.mjs runs it, then starts the
 * server): migrates the store; when it holds no organization at all, creates
 * "Demo Organization" with a few thousand seeded events; and makes sure a
 * working demo API key exists. Prints one JSON document on stdout for
 * demo.mjs; progress goes to stderr.
 *
 * Private keys are never stored in the database, so the demo keeps its key's
 * private half in demo-credentials.json next to the SQLite database (by
 * default data/demo-credentials.json, git-ignored; ./data/ for PostgreSQL),
 * mode 600, purely as a demo convenience. When that file is missing or no longer matches the
 * database (another DATABASE_URL, a revoked key, a changed DIGEST_REALM), a
 * new demo key is issued and the stale one revoked.
 */
import { errorMessage } from '@/lib/domain/errors';
import fs from 'node:fs';
import path from 'node:path';
import { issueApiKey, privateKeyMatches } from '@/lib/auth/api-keys';
import { getConfig } from '@/lib/config';
import { generateEventBatches } from '@/lib/ingest/seed';
import { openStore, parseDatabaseUrl } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';

export const DEMO_ORG_ID = '65a1b2c3d4e5f6a7b8c9d0e1';
const DEMO_ORG_NAME = 'Demo Organization';
const DEMO_EVENTS = 5000;
const DEMO_DAYS = 30;
const DEMO_KEY_DESCRIPTION = 'Demo key (npm run demo)';

/** Next to the SQLite file (the default: data/), or in ./data for PostgreSQL. */
function credentialsFile(): string {
  const target = parseDatabaseUrl(getConfig().DATABASE_URL);
  const dir =
    target.engine === 'sqlite' && target.filename !== ':memory:'
      ? path.dirname(path.resolve(target.filename))
      : path.resolve('data');
  return path.join(dir, 'demo-credentials.json');
}

type Credentials = { orgId: string; publicKey: string; privateKey: string; realm: string };

export type DemoSetup =
  | {
      orgId: string;
      orgName: string;
      events: number;
      seeded: number;
      publicKey: string;
      privateKey: string;
      keyIssued: boolean;
      credentialsFile: string;
    }
  | { orgId: null; organizations: number };

function log(message: string): void {
  process.stderr.write(`[demo] ${message}\n`);
}

async function seedDemoOrg(store: EventStore): Promise<number> {
  const to = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const from = to - DEMO_DAYS * 86_400_000;
  await store.createOrg({ id: DEMO_ORG_ID, name: DEMO_ORG_NAME, created: from });
  let inserted = 0;
  for (const batch of generateEventBatches(
    { orgId: DEMO_ORG_ID, count: DEMO_EVENTS, seed: 'demo', from, to, orgName: DEMO_ORG_NAME },
    DEMO_EVENTS,
  )) {
    inserted += (await store.insertEvents(DEMO_ORG_ID, batch)).inserted;
  }
  return inserted;
}

function readCredentials(file: string): Credentials | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Credentials>;
    if (
      typeof parsed.publicKey === 'string' &&
      typeof parsed.privateKey === 'string' &&
      typeof parsed.orgId === 'string' &&
      typeof parsed.realm === 'string'
    ) {
      return parsed as Credentials;
    }
  } catch {
    // Missing or unreadable: a new key is issued.
  }
  return null;
}

/** The saved key still authenticates against this database and realm, in the demo org. */
async function stillWorks(store: EventStore, saved: Credentials, realm: string): Promise<boolean> {
  if (saved.orgId !== DEMO_ORG_ID || saved.realm !== realm) return false;
  const record = await store.getApiKeyByPublicKey(saved.publicKey);
  if (!record || record.disabled || !privateKeyMatches(store, record, saved.privateKey, realm))
    return false;
  return (await store.getRoles(DEMO_ORG_ID, record.id)).length > 0;
}

function writeCredentials(file: string, credentials: Credentials): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const text = `${JSON.stringify(
    {
      note: 'Demo convenience only: org-events never stores private keys; npm run demo keeps this one here so it can show it again.',
      ...credentials,
    },
    null,
    2,
  )}\n`;
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600); // mode applies only when the file is created
}

export async function setupDemo(): Promise<DemoSetup> {
  const realm = getConfig().DIGEST_REALM;
  const file = credentialsFile();
  const store = await openStore();
  try {
    let seeded = 0;
    const orgs = await store.listOrgs();
    if (orgs.length === 0) {
      log(
        `Empty database: creating "${DEMO_ORG_NAME}" with ${DEMO_EVENTS.toLocaleString('en-US')} events`,
      );
      seeded = await seedDemoOrg(store);
    }
    const org = await store.getOrg(DEMO_ORG_ID);
    if (!org) {
      log('The database already holds organizations; leaving them as they are (no demo data).');
      return { orgId: null, organizations: orgs.length };
    }

    const saved = readCredentials(file);
    let credentials: Credentials;
    let keyIssued = false;
    if (saved && (await stillWorks(store, saved, realm))) {
      credentials = saved;
    } else {
      if (saved && (await store.getApiKeyByPublicKey(saved.publicKey))) {
        await store.setApiKeyDisabled(saved.publicKey, true);
      }
      const { record, privateKey } = await issueApiKey(store, {
        orgId: DEMO_ORG_ID,
        role: 'ORG_OWNER',
        description: DEMO_KEY_DESCRIPTION,
        realm,
      });
      credentials = { orgId: DEMO_ORG_ID, publicKey: record.publicKey, privateKey, realm };
      writeCredentials(file, credentials);
      keyIssued = true;
      // demo.mjs prints the key and where its private half is kept: said once.
      log(
        saved
          ? `Issued another demo API key: the saved one (${saved.publicKey}) does not work here`
          : 'Issued a demo API key',
      );
    }
    return {
      orgId: org.id,
      orgName: org.name,
      events: await store.countEvents({ orgId: org.id }),
      seeded,
      publicKey: credentials.publicKey,
      privateKey: credentials.privateKey,
      keyIssued,
      credentialsFile: file,
    };
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  setupDemo().then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`[demo] Setup failed: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
