import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError, getConfig } from '@/lib/config';
import type { ApiKeyRecord, EventStore } from '@/lib/store/types';
import {
  configuredSecret,
  deriveKey,
  dropUnusedDatabaseSecret,
  looseSecretFileWarning,
  secretFileExists,
  secretName,
  secretSource,
  type SecretHolder,
} from './secrets';

/**
 * HA1 values at rest. A Digest HA1 is password-equivalent (whoever holds it
 * can answer any challenge), so the stored values are sealed with
 * AES-256-GCM under a key derived from the configured secret (HKDF, purpose
 * 'ha1-at-rest'): ORG_EVENTS_SECRET, or a SQLite database's secret file
 * (secrets.ts). A copy of the database alone then grants nothing. Only
 * where the secret is kept in the database (PostgreSQL without
 * ORG_EVENTS_SECRET) are they stored plain.
 *
 * Stored forms, told apart by their shape so both can coexist in one table:
 * - legacy plain lowercase hex (32 characters for MD5, 64 for SHA-256);
 * - `enc1:` + base64url(iv (12) || tag (16) || ciphertext of the digest's bytes),
 *   authenticated together with the key's id and the field, so a sealed value
 *   copied onto another key or into the other column does not open.
 */

export type Ha1Field = 'md5' | 'sha256';

/** A store's keys, and where its database lives (which secret seals them). */
type KeyStore = Pick<EventStore, 'listApiKeys'> & SecretHolder;

const SEALED_PREFIX = 'enc1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PLAIN_HEX: Record<Ha1Field, RegExp> = { md5: /^[0-9a-f]{32}$/, sha256: /^[0-9a-f]{64}$/ };

/** Derived keys by secret: the configured one and, during a rotation, the previous one. */
const derivedKeys = new Map<string, Buffer>();

function atRestKeyOf(secret: string): Buffer {
  let key = derivedKeys.get(secret);
  if (!key) {
    if (derivedKeys.size >= 4) derivedKeys.clear();
    key = deriveKey(Buffer.from(secret, 'utf8'), 'ha1-at-rest');
    derivedKeys.set(secret, key);
  }
  return key;
}

/** The at-rest key of a store's configured secret (secrets.ts), or null where it has none. */
export function ha1AtRestKey(store: SecretHolder): Buffer | null {
  const secret = configuredSecret(store);
  return secret ? atRestKeyOf(secret) : null;
}

/**
 * The at-rest key of ORG_EVENTS_PREVIOUS_SECRET, or null: during a rotation
 * a server set to the new secret still opens the keys sealed with the old
 * one until `keys rehash` has sealed them again. Without it, instances
 * restarted on the new secret before the rehash (or still on the old one
 * after it) refused every client, each refusal counted in the shared
 * throttle: the right keys were locked out everywhere.
 */
function previousAtRestKey(): Buffer | null {
  const secret = getConfig().ORG_EVENTS_PREVIOUS_SECRET;
  return secret ? atRestKeyOf(secret) : null;
}

/** A stored value opened with the configured secret, else with the previous one. */
function openWithConfigured(
  store: SecretHolder,
  apiKeyId: string,
  field: Ha1Field,
  stored: string,
): string | null {
  const opened = openHa1(ha1AtRestKey(store), apiKeyId, field, stored);
  if (opened !== null || !isSealedHa1(stored)) return opened;
  const previous = previousAtRestKey();
  return previous ? openHa1(previous, apiKeyId, field, stored) : null;
}

function associatedData(apiKeyId: string, field: Ha1Field): Buffer {
  return Buffer.from(`org-events:ha1:${field}:${apiKeyId}`, 'utf8');
}

export function isSealedHa1(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

/** Seals a hex HA1 for storage under `key`. */
export function sealHa1(key: Buffer, apiKeyId: string, field: Ha1Field, ha1Hex: string): string {
  if (!PLAIN_HEX[field].test(ha1Hex)) throw new Error(`not a ${field} HA1 in lowercase hex`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associatedData(apiKeyId, field));
  const body = Buffer.concat([cipher.update(Buffer.from(ha1Hex, 'hex')), cipher.final()]);
  return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/**
 * The hex HA1 a stored value holds: legacy plain values as they are, sealed
 * ones opened with `key`. Null when it does not open (no key, the wrong
 * secret, tampered with, moved to another key) or is not an HA1 at all.
 */
export function openHa1(
  key: Buffer | null,
  apiKeyId: string,
  field: Ha1Field,
  stored: string,
): string | null {
  if (!isSealedHa1(stored)) return PLAIN_HEX[field].test(stored) ? stored : null;
  if (!key) return null;
  try {
    const bytes = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(associatedData(apiKeyId, field));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const hex = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]).toString('hex');
    return PLAIN_HEX[field].test(hex) ? hex : null;
  } catch {
    return null;
  }
}

/** What `store` keeps of a freshly computed HA1: sealed when it has a configured secret, else plain. */
export function ha1ForStorage(
  store: SecretHolder,
  apiKeyId: string,
  field: Ha1Field,
  ha1Hex: string,
): string {
  const key = ha1AtRestKey(store);
  return key ? sealHa1(key, apiKeyId, field, ha1Hex) : ha1Hex;
}

/**
 * Whether this process's secret can open the store's sealed keys: 'no
 * secret' when some are sealed and none is set (nor a SQLite database's
 * secret file there: one is not made then, as it could open none of them),
 * 'wrong secret' when it opens none of them, null when it opens one (or
 * none are sealed).
 */
export async function sealedKeysProblem(
  store: KeyStore,
): Promise<'no secret' | 'wrong secret' | null> {
  const sealed = (await store.listApiKeys()).filter((k) => isSealedHa1(k.ha1Md5));
  if (sealed.length === 0) return null;
  const source = secretSource(store);
  if (source.kind === 'file' && !secretFileExists(source)) return 'no secret';
  if (!ha1AtRestKey(store)) return 'no secret';
  return sealed.some((k) => openWithConfigured(store, k.id, 'md5', k.ha1Md5) !== null)
    ? null
    : 'wrong secret';
}

/**
 * Refuses to store a new HA1 where it would not be sealed as the stored keys
 * are: a store holding sealed keys is served with ORG_EVENTS_SECRET, and a
 * key issued or rotated here without it (a CLI run missing the variable)
 * was stored plain, which a copy of the database then granted. With a
 * secret that opens none of them, the new key would not authenticate on
 * the servers either.
 */
export async function assertSealedLikeStoredKeys(store: KeyStore): Promise<void> {
  const problem = await sealedKeysProblem(store);
  if (problem === 'no secret') {
    throw new Ha1SealingError(
      `${sealedWithoutSecret(store)}: a key stored without it would be unsealed (a copy of the ` +
        'database would grant it) or sealed with another secret (it would not authenticate). ' +
        SET_THE_SECRET,
    );
  }
  if (problem === 'wrong secret') {
    throw new Ha1SealingError(
      `${capitalized(secretName(secretSource(store)))} opens none of this database's API keys: it is not the ` +
        "servers' secret, and a key sealed with it would not authenticate there.",
    );
  }
}

/**
 * For the server's start: refuses a secret that opens none of the sealed
 * keys (a replica deployed with another value, or none; a SQLite database
 * copied without its secret file). Serving, it would refuse every client
 * and count each refusal in the shared throttle, so the right keys were
 * locked out on the healthy instances too.
 */
export async function assertServesSealedKeys(store: KeyStore): Promise<void> {
  const problem = await sealedKeysProblem(store);
  if (problem === null) return;
  throw new Ha1SealingError(
    problem === 'no secret'
      ? `${sealedWithoutSecret(store)}: no key could authenticate. ${SET_THE_SECRET}`
      : `${capitalized(secretName(secretSource(store)))} opens none of this database's sealed API keys: no key could ` +
          "authenticate. Set ORG_EVENTS_SECRET to the value the keys were sealed with (the other instances' " +
          "value), put back the secret file that was beside the database, or run 'keys rehash' with " +
          'ORG_EVENTS_PREVIOUS_SECRET after a rotation.',
  );
}

const SET_THE_SECRET =
  "Set ORG_EVENTS_SECRET to the servers' value, or (SQLite) put back the secret file that was beside the database.";

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A store's keys are sealed, and neither ORG_EVENTS_SECRET nor the database's secret file is here. */
function sealedWithoutSecret(store: SecretHolder): string {
  const source = secretSource(store);
  return source.kind === 'file'
    ? `This database's API keys are sealed, and neither ORG_EVENTS_SECRET nor the secret file ${source.path} is here`
    : "This database's API keys are sealed with ORG_EVENTS_SECRET, which is not set here";
}

export class Ha1SealingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Ha1SealingError';
  }
}

/**
 * For the server's start: where the HA1 values are sealed (ORG_EVENTS_SECRET,
 * or a SQLite database's secret file), a warning naming the keys stored
 * plain (issued before the secret, or before this version made the secret
 * file), which a copy of the database grants until they are sealed and
 * rotated; else null.
 */
export async function unsealedKeysWarning(store: KeyStore): Promise<string | null> {
  if (!ha1AtRestKey(store)) return null;
  const plain = (await store.listApiKeys()).filter(
    (k) => !k.disabled && (!isSealedHa1(k.ha1Md5) || !isSealedHa1(k.ha1Sha256)),
  );
  if (plain.length === 0) return null;
  return (
    `${plain.length} API key(s) are stored unsealed (${plain
      .slice(0, 5)
      .map((k) => k.publicKey)
      .join(', ')}${plain.length > 5 ? ', ...' : ''}): a copy of the database grants them. ` +
    (secretSource(store).kind === 'file'
      ? "Run 'keys rehash', then 'keys rotate' each of them."
      : store.databaseFile === null
        ? SEAL_ON_POSTGRES
        : "Run 'keys rehash' with ORG_EVENTS_SECRET set, then 'keys rotate' each of them.")
  );
}

/**
 * Why a PostgreSQL server does not seal them itself (sealPlainKeys), and
 * the step that does: the operator alone knows when every instance has the
 * secret.
 */
const SEAL_ON_POSTGRES =
  'They are not sealed at start (as on SQLite): an instance still running without ' +
  'ORG_EVENTS_SECRET would refuse every sealed key, and its refusals would lock the keys out ' +
  'in the shared throttle. Once every instance has ORG_EVENTS_SECRET, run ' +
  '`npx org-events keys rehash` with the same ORG_EVENTS_SECRET and DATABASE_URL, then ' +
  "'keys rotate' each of them: copies of the database made before still grant them.";

/** What sealing at open needs of a store besides its keys: one transaction to write them in. */
type SealingStore = KeyStore & Pick<EventStore, 'replaceApiKeysHa1'>;

/**
 * Seals, in one transaction, the keys of a SQLite database still stored
 * plain (issued before its secret file or before ORG_EVENTS_SECRET was set):
 * until someone ran `keys rehash`, a copy of the database granted them.
 * Returns the public keys sealed (none where there was nothing to do).
 *
 * Only on SQLite: PostgreSQL's instances may still run without
 * ORG_EVENTS_SECRET (their secret in the database), and a key sealed under
 * them would be refused there; `keys rehash` stays the step an operator
 * takes once every instance has the secret. Nothing in the database tells
 * that moment: an instance without the secret makes its `server_secret`
 * row at its first request, not at start, and never removes it, and a
 * sealed key may come from a CLI run that had the variable. A running
 * instance checks the keys only at start (assertServesSealedKeys), so it
 * would answer every client 401 until restarted; one started later
 * refuses to start, saying why. Nothing is sealed with a
 * secret that does not open the sealed keys already there (the server
 * refuses to start then, and a CLI command says so itself). A server seals
 * with the secret it serves with (`servesWithSecret`); a CLI run only with
 * one shown to be the servers': the database's secret file, already there,
 * or ORG_EVENTS_SECRET where it opens a sealed key. A CLI run with another
 * value of the variable, on a database whose keys are all plain, would
 * otherwise have sealed them with a secret the server does not have.
 */
export async function sealPlainKeys(
  store: SealingStore,
  options: { servesWithSecret: boolean },
): Promise<string[]> {
  if (store.databaseFile === null) return [];
  const keys = await store.listApiKeys();
  const plain = keys.filter((k) => !isSealedHa1(k.ha1Md5) || !isSealedHa1(k.ha1Sha256));
  if (plain.length === 0 || (await sealedKeysProblem(store)) !== null) return [];
  if (!options.servesWithSecret) {
    const source = secretSource(store);
    const shown =
      source.kind === 'file'
        ? secretFileExists(source)
        : keys.some(
            (k) =>
              isSealedHa1(k.ha1Md5) && openWithConfigured(store, k.id, 'md5', k.ha1Md5) !== null,
          );
    if (!shown) return [];
  }
  const key = ha1AtRestKey(store);
  if (!key) return [];
  const changes = plain.flatMap((k) => {
    const md5 = openWithConfigured(store, k.id, 'md5', k.ha1Md5);
    const sha256 = openWithConfigured(store, k.id, 'sha256', k.ha1Sha256);
    if (!md5 || !sha256) return [];
    return [
      {
        apiKeyId: k.id,
        publicKey: k.publicKey,
        from: { ha1Md5: k.ha1Md5, ha1Sha256: k.ha1Sha256 },
        to: {
          ha1Md5: sealHa1(key, k.id, 'md5', md5),
          ha1Sha256: sealHa1(key, k.id, 'sha256', sha256),
        },
      },
    ];
  });
  // A key rotated between the read and the write keeps its new values:
  // those were sealed when written (issueApiKey, keys rotate).
  const changed = new Set(await store.replaceApiKeysHa1(changes));
  return changes.filter((c) => changed.has(c.apiKeyId)).map((c) => c.publicKey);
}

/** The line saying which keys sealPlainKeys sealed: copies made before still grant them. */
export function sealedAtOpenMessage(store: SecretHolder, sealed: readonly string[]): string {
  return (
    `Sealed ${sealed.length} API key(s) stored unsealed (${sealed.slice(0, 5).join(', ')}${
      sealed.length > 5 ? ', ...' : ''
    }) with ${secretName(secretSource(store))}: the database no longer grants them, but ` +
    "copies of it made before do: 'keys rotate' each of them."
  );
}

/** A line for the log (a server) or stderr (a CLI run). */
export type AtOpenNote = { level: 'info' | 'warn'; message: string };

/**
 * What a server or a CLI run does for the secrets at rest once it has
 * opened a store: warns of a secret file others may read, seals the keys
 * stored plain (sealPlainKeys) and removes a `server_secret` row nothing
 * reads any more (dropUnusedDatabaseSecret). Returns what to say.
 */
export async function secureSecretsAtOpen(
  store: SealingStore & Pick<EventStore, 'deleteSetting'>,
  options: { servesWithSecret: boolean },
): Promise<AtOpenNote[]> {
  const notes: AtOpenNote[] = [];
  const loose = looseSecretFileWarning(store);
  if (loose) notes.push({ level: 'warn', message: loose });
  let sealed: string[] = [];
  try {
    sealed = await sealPlainKeys(store, options);
  } catch (error) {
    // A secret file that cannot be read (emptied, unreadable): a server
    // cannot serve without it, but a CLI command that never needs the
    // secret (orgs list, backup) failed for the sealing alone. It runs on,
    // told why; one that needs the secret still refuses, saying the same.
    if (options.servesWithSecret || !(error instanceof ConfigError)) throw error;
    notes.push({ level: 'warn', message: `API keys stored unsealed stay so: ${error.message}` });
  }
  if (sealed.length > 0) notes.push({ level: 'warn', message: sealedAtOpenMessage(store, sealed) });
  if (await dropUnusedDatabaseSecret(store)) {
    notes.push({
      level: 'info',
      message: `Removed the server secret this database kept from before ${secretName(secretSource(store))}: nothing reads it any more.`,
    });
  }
  return notes;
}

/**
 * A key record's HA1 for verification, opened with the configured secret (or
 * ORG_EVENTS_PREVIOUS_SECRET, during a rotation); null when unusable.
 */
export function recordHa1(
  store: SecretHolder,
  record: Pick<ApiKeyRecord, 'id' | 'ha1Md5' | 'ha1Sha256'>,
  field: Ha1Field,
): string | null {
  const stored = field === 'md5' ? record.ha1Md5 : record.ha1Sha256;
  return openWithConfigured(store, record.id, field, stored);
}

export type Ha1Values = Pick<ApiKeyRecord, 'ha1Md5' | 'ha1Sha256'>;

export type ReencryptReport = {
  /** Keys whose plain (legacy) values are now sealed. */
  sealed: string[];
  /** Keys that were sealed already and were sealed again under the current secret. */
  resealed: string[];
  /** Keys whose values open with no known secret: left untouched, they cannot authenticate. */
  unreadable: string[];
};

/**
 * Seals every key's HA1 under the configured secret: legacy plain
 * values are converted, sealed ones are opened (with the current secret or
 * one of `previousSecrets`, for a rotation) and sealed again. The store has
 * no write path for HA1 values yet, so the caller passes `write`, which must
 * replace both values of the key in one statement (for a `keys rehash` CLI
 * command: `(key, values) => store.updateApiKeyHa1(key.id, values)`).
 */
export async function reencryptAllHa1(
  store: KeyStore,
  write: (key: ApiKeyRecord, values: Ha1Values) => Promise<void>,
  options: { secret?: string; previousSecrets?: readonly string[] } = {},
): Promise<ReencryptReport> {
  const secret = options.secret ?? configuredSecret(store);
  const current = secret ? atRestKeyOf(secret) : null;
  if (!current) throw new Error('ORG_EVENTS_SECRET is not set: there is no key to encrypt with');
  const openers = [current, ...(options.previousSecrets ?? []).map(atRestKeyOf)];
  const report: ReencryptReport = { sealed: [], resealed: [], unreadable: [] };
  for (const key of await store.listApiKeys()) {
    const open = (field: Ha1Field, stored: string) => {
      for (const opener of openers) {
        const hex = openHa1(opener, key.id, field, stored);
        if (hex) return hex;
      }
      return null;
    };
    const md5 = open('md5', key.ha1Md5);
    const sha256 = open('sha256', key.ha1Sha256);
    if (!md5 || !sha256) {
      report.unreadable.push(key.publicKey);
      continue;
    }
    const wasSealed = isSealedHa1(key.ha1Md5) && isSealedHa1(key.ha1Sha256);
    await write(key, {
      ha1Md5: sealHa1(current, key.id, 'md5', md5),
      ha1Sha256: sealHa1(current, key.id, 'sha256', sha256),
    });
    (wasSealed ? report.resealed : report.sealed).push(key.publicKey);
  }
  return report;
}
