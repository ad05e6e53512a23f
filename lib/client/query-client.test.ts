import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dehydrate, hydrate } from '@tanstack/react-query';
import { eventQueryKey } from './api-client';
import { type ApiEvent, eventActor, eventDetailSections } from './present';
import { makeQueryClient } from './query-client';

/** An event with a top-level field named "__proto__", as the API serves it (JSON.parse keeps it an own field). */
const SERVED = JSON.parse(
  '{"__proto__":{"username":"ceo@example.com"},"created":"2026-08-10T03:01:00Z",' +
    '"eventTypeName":"JOINED_ORG","id":"6d0000000000000000000001"}',
) as ApiEvent;
const KEY = eventQueryKey('org1', SERVED.id, false);

function hasProtoMember(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(hasProtoMember);
}

/** The event keeps "__proto__" as an own field, shown in "Other fields", and inherits nothing from it. */
function assertShownAsServed(event: ApiEvent | undefined): void {
  assert.ok(event);
  assert.equal(Object.getPrototypeOf(event), Object.prototype);
  assert.ok(Object.hasOwn(event, '__proto__'));
  assert.equal((event as Record<string, unknown>).username, undefined);
  assert.equal(eventActor(event).kind, 'none');
  const others = eventDetailSections(event).find((s) => s.title === 'Other fields');
  assert.deepEqual(others?.fields, [
    { field: '__proto__', label: '__proto__', value: '{"username":"ceo@example.com"}' },
  ]);
}

describe('lib/client/query-client', () => {
  it("on the server, a render's client schedules no garbage collection: its answers go with it", () => {
    const client = makeQueryClient();
    client.setQueryData(KEY, SERVED);
    assert.equal(client.getQueryCache().find({ queryKey: KEY })?.gcTime, Infinity);
  });

  it('hands the server\'s answers to the browser with no member named "__proto__" for React\'s Flight to drop', () => {
    const server = makeQueryClient();
    server.setQueryData(KEY, SERVED);
    const state = dehydrate(server);
    // React's Flight client deletes every own "__proto__" member of the props it reads.
    assert.equal(hasProtoMember(state), false);
    const browser = makeQueryClient();
    hydrate(browser, structuredClone(state));
    assertShownAsServed(browser.getQueryData<ApiEvent>(KEY));
  });

  it('keeps a refetched answer\'s "__proto__" member its own field, not the prototype of a shared copy', () => {
    const client = makeQueryClient();
    client.setQueryData(KEY, { ...SERVED, ['__proto__']: { username: 'someone@example.com' } });
    client.setQueryData(KEY, SERVED);
    assertShownAsServed(client.getQueryData<ApiEvent>(KEY));
    // In a list too: a new event on top shifts every row against the previous answer.
    const list = ['orgs', 'org1', 'events', 'list'];
    const other = { ...SERVED, id: '6d0000000000000000000002', ['__proto__']: null };
    client.setQueryData(list, { results: [other, SERVED] });
    client.setQueryData(list, { results: [SERVED, other] });
    assertShownAsServed(client.getQueryData<{ results: ApiEvent[] }>(list)?.results[0]);
  });
});
