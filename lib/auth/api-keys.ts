import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { newObjectId } from '@/lib/domain/object-id';
import type { ApiKeyRecord, EventStore, OrgRole } from '@/lib/store/types';
import { assertSealedLikeStoredKeys, ha1ForStorage, recordHa1 } from './ha1-at-rest';
import type { SecretHolder } from './secrets';

export type DigestAlgorithm = 'MD5' | 'SHA-256';

/** HA1 = H(username:realm:password), the only secret material we keep. */
export function computeHa1(
  algorithm: DigestAlgorithm,
  publicKey: string,
  realm: string,
  privateKey: string,
): string {
  const hash = algorithm === 'MD5' ? 'md5' : 'sha256';
  return createHash(hash).update(`${publicKey}:${realm}:${privateKey}`, 'utf8').digest('hex');
}

/**
 * What the store keeps of a key's private key: its HA1 for each algorithm,
 * sealed with the store's secret when it has one (ha1-at-rest.ts).
 * Used when a key is issued and when it is rotated.
 */
export function storedHa1s(
  store: SecretHolder,
  id: string,
  publicKey: string,
  realm: string,
  privateKey: string,
): { ha1Md5: string; ha1Sha256: string } {
  return {
    ha1Md5: ha1ForStorage(store, id, 'md5', computeHa1('MD5', publicKey, realm, privateKey)),
    ha1Sha256: ha1ForStorage(
      store,
      id,
      'sha256',
      computeHa1('SHA-256', publicKey, realm, privateKey),
    ),
  };
}

/** Public keys look like the real service's: eight lowercase letters. */
export function generatePublicKey(): string {
  let key = '';
  for (let i = 0; i < 8; i++) key += String.fromCharCode(97 + randomInt(26));
  return key;
}

export type IssuedApiKey = { record: ApiKeyRecord; privateKey: string };

/**
 * Creates a key and grants it a role in an organization. The private key is
 * returned once and never stored: only its HA1 values for the realm are,
 * sealed with the store's secret when it has one (ha1-at-rest.ts);
 * refused where the stored keys are sealed with another secret or none.
 */
export async function issueApiKey(
  store: EventStore,
  options: { orgId: string; role: OrgRole; description: string; realm: string },
): Promise<IssuedApiKey> {
  await assertSealedLikeStoredKeys(store);
  const privateKey = randomUUID();
  for (let attempt = 0; ; attempt++) {
    const publicKey = generatePublicKey();
    if (await store.getApiKeyByPublicKey(publicKey)) {
      if (attempt > 20) throw new Error('Could not allocate a unique public key');
      continue;
    }
    const id = newObjectId();
    const record: ApiKeyRecord = {
      id,
      publicKey,
      description: options.description,
      created: Date.now(),
      disabled: false,
      realm: options.realm,
      ...storedHa1s(store, id, publicKey, options.realm, privateKey),
    };
    await store.createApiKey(record);
    await store.grantRole({
      orgId: options.orgId,
      apiKeyId: record.id,
      role: options.role,
      created: record.created,
    });
    return { record, privateKey };
  }
}

/**
 * Constant-time check of a private key against the stored HA1 (dashboard
 * sign-in). False too when the stored value does not open (wrong secret).
 */
export function privateKeyMatches(
  store: SecretHolder,
  record: ApiKeyRecord,
  privateKey: string,
  realm: string,
): boolean {
  if (record.realm !== realm) return false;
  const stored = recordHa1(store, record, 'sha256');
  const actual = Buffer.from(computeHa1('SHA-256', record.publicKey, realm, privateKey), 'hex');
  const expected = stored === null ? Buffer.alloc(actual.length) : Buffer.from(stored, 'hex');
  const equal = expected.length === actual.length && timingSafeEqual(expected, actual);
  return equal && stored !== null;
}
