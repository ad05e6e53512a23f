import { newObjectId } from '@/lib/domain/object-id';
import type { EventStore } from '@/lib/store/types';
import type { E2eKey, E2eState } from './state';

/**
 * The key that reads the orgs of orgOfItsOwn: a spare member of the first
 * org that no spec signs in with otherwise, so the member key stays a member
 * of that one org only ("lands on the only organization it can read").
 */
export function ownOrgsKey(state: E2eState): E2eKey {
  return state.keys.spare[1]!;
}

/**
 * A new organization named `name`, read with ownOrgsKey. A spec that adds
 * events puts them in one of these, so the seeded orgs stay what the specs
 * running at the same time expect.
 */
export async function orgOfItsOwn(
  store: EventStore,
  state: E2eState,
  name: string,
): Promise<string> {
  const key = ownOrgsKey(state);
  const orgId = newObjectId();
  await store.createOrg({ id: orgId, name, created: Date.now() });
  const stored = await store.getApiKeyByPublicKey(key.publicKey);
  await store.grantRole({ orgId, apiKeyId: stored!.id, role: 'ORG_MEMBER', created: Date.now() });
  return orgId;
}
