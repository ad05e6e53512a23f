import { newObjectId } from '@/lib/domain/object-id';
import { toNewEvent } from '@/lib/ingest/import';
import { openStore } from '@/lib/store';
import type { EventStore, NewEvent } from '@/lib/store/types';
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

/**
 * orgOfItsOwn in the e2e store, holding the events `eventsFor` makes for
 * its id (none by default).
 */
export async function orgWithEvents(
  state: E2eState,
  name: string,
  eventsFor: (orgId: string) => NewEvent[] = () => [],
): Promise<string> {
  const store = await openStore(state.databaseUrl);
  try {
    const orgId = await orgOfItsOwn(store, state, name);
    const events = eventsFor(orgId);
    if (events.length > 0) await store.insertEvents(orgId, events);
    return orgId;
  } finally {
    await store.close();
  }
}

/** An event read from its source text as an import reads it, the text kept as its own. */
export function importedEvent(orgId: string, text: string): NewEvent {
  const event = toNewEvent(JSON.parse(text) as unknown, orgId, false, text);
  if (typeof event === 'string') throw new Error(event);
  return event;
}
