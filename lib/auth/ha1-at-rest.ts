import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { getConfig } from '@/lib/config';
import type { ApiKeyRecord, EventStore } from '@/lib/store/types';
import { deriveKey } from './secrets';

/**
 * HA1 values at rest. A Digest HA1 is password-equivalent (whoever holds it
 * can answer any challenge), so with ORG_EVENTS_SECRET set the stored values
 * are sealed with AES-256-GCM under a key derived from that secret (HKDF,
 * purpose 'ha1-at-rest'): a copy of the database alone then grants nothing.
 *
 * Stored forms, told apart by their shape so both can coexist in one table:
 * - legacy plain lowercase hex (32 characters for MD5, 64 for SHA-256);
 * - `enc1:` + base64url(iv (12) || tag (16) || ciphertext of the digest's bytes),
 *   authenticated together with the key's id and the field, so a sealed value
 *   copied onto another key or into the other column does not open.
 */

export type Ha1Field = 'md5' | 'sha256';

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

/** The at-rest key for a secret (default: the configured one), or null without one. */
export function ha1AtRestKey(
  secret: string | undefined = getConfig().ORG_EVENTS_SECRET,
): Buffer | null {
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
function openWithConfigured(apiKeyId: string, field: Ha1Field, stored: string): string | null {
  const opened = openHa1(ha1AtRestKey(), apiKeyId, field, stored);
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

/** What to store for a freshly computed HA1: sealed when a secret is configured, else plain. */
export function ha1ForStorage(apiKeyId: string, field: Ha1Field, ha1Hex: string): string {
  const key = ha1AtRestKey();
  return key ? sealHa1(key, apiKeyId, field, ha1Hex) : ha1Hex;
}

/**
 * Whether this process's ORG_EVENTS_SECRET can open the store's sealed keys:
 * 'no secret' when some are sealed and none is set, 'wrong secret' when it
 * opens none of them, null when it opens one (or none are sealed).
 */
export async function sealedKeysProblem(
  store: Pick<EventStore, 'listApiKeys'>,
): Promise<'no secret' | 'wrong secret' | null> {
  const sealed = (await store.listApiKeys()).filter((k) => isSealedHa1(k.ha1Md5));
  if (sealed.length === 0) return null;
  if (!ha1AtRestKey()) return 'no secret';
  return sealed.some((k) => openWithConfigured(k.id, 'md5', k.ha1Md5) !== null)
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
export async function assertSealedLikeStoredKeys(
  store: Pick<EventStore, 'listApiKeys'>,
): Promise<void> {
  const problem = await sealedKeysProblem(store);
  if (problem === 'no secret') {
    throw new Ha1SealingError(
      "This database's API keys are sealed with ORG_EVENTS_SECRET, which is not set here: " +
        'a key stored without it would be unsealed, and a copy of the database would grant it. ' +
        "Set ORG_EVENTS_SECRET to the servers' value.",
    );
  }
  if (problem === 'wrong secret') {
    throw new Ha1SealingError(
      "ORG_EVENTS_SECRET here opens none of this database's API keys: it is not the servers' " +
        'secret, and a key sealed with it would not authenticate there.',
    );
  }
}

/**
 * For the server's start: refuses a secret that opens none of the sealed
 * keys (a replica deployed with another value, or none). Serving, it would
 * refuse every client and count each refusal in the shared throttle, so the
 * right keys were locked out on the healthy instances too.
 */
export async function assertServesSealedKeys(
  store: Pick<EventStore, 'listApiKeys'>,
): Promise<void> {
  const problem = await sealedKeysProblem(store);
  if (problem === null) return;
  throw new Ha1SealingError(
    problem === 'no secret'
      ? "This database's API keys are sealed with ORG_EVENTS_SECRET, which is not set: " +
          'no key could authenticate. Set it to the value the keys were sealed with.'
      : "ORG_EVENTS_SECRET opens none of this database's sealed API keys: no key could " +
          "authenticate. Set it to the value the keys were sealed with (the other instances' " +
          "value), or run 'keys rehash' with ORG_EVENTS_PREVIOUS_SECRET after a rotation.",
  );
}

export class Ha1SealingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Ha1SealingError';
  }
}

/**
 * For the server's start: with ORG_EVENTS_SECRET set, a warning naming the
 * keys stored plain (issued before the secret, or without it), which a copy
 * of the database grants until they are sealed and rotated; else null.
 */
export async function unsealedKeysWarning(
  store: Pick<EventStore, 'listApiKeys'>,
): Promise<string | null> {
  if (!ha1AtRestKey()) return null;
  const plain = (await store.listApiKeys()).filter(
    (k) => !k.disabled && (!isSealedHa1(k.ha1Md5) || !isSealedHa1(k.ha1Sha256)),
  );
  if (plain.length === 0) return null;
  return (
    `${plain.length} API key(s) are stored unsealed (${plain
      .slice(0, 5)
      .map((k) => k.publicKey)
      .join(', ')}${plain.length > 5 ? ', ...' : ''}): a copy of the database grants them. ` +
    "Run 'keys rehash' with ORG_EVENTS_SECRET set, then 'keys rotate' each of them."
  );
}

/**
 * A key record's HA1 for verification, opened with the configured secret (or
 * ORG_EVENTS_PREVIOUS_SECRET, during a rotation); null when unusable.
 */
export function recordHa1(
  record: Pick<ApiKeyRecord, 'id' | 'ha1Md5' | 'ha1Sha256'>,
  field: Ha1Field,
): string | null {
  return openWithConfigured(record.id, field, field === 'md5' ? record.ha1Md5 : record.ha1Sha256);
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
 * Seals every key's HA1 under the current ORG_EVENTS_SECRET: legacy plain
 * values are converted, sealed ones are opened (with the current secret or
 * one of `previousSecrets`, for a rotation) and sealed again. The store has
 * no write path for HA1 values yet, so the caller passes `write`, which must
 * replace both values of the key in one statement (for a `keys rehash` CLI
 * command: `(key, values) => store.updateApiKeyHa1(key.id, values)`).
 */
export async function reencryptAllHa1(
  store: Pick<EventStore, 'listApiKeys'>,
  write: (key: ApiKeyRecord, values: Ha1Values) => Promise<void>,
  options: { secret?: string; previousSecrets?: readonly string[] } = {},
): Promise<ReencryptReport> {
  const current = ha1AtRestKey(options.secret ?? getConfig().ORG_EVENTS_SECRET);
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
