import { formatCreated, type StoredEvent } from '@/lib/domain/event';
import { type MirrorOptions, type MirrorSummary, runMirror } from '@/lib/mirror/mirror';
import type { TestStore } from './test-stores';

/**
 * Mirrors a source organization (`baseUrl`, `sourceOrg`) into `orgId`, a new
 * organization of a fresh store, and lists the copy as the store serves it
 * (newest first, at most 100 events). The store is dropped afterwards.
 */
export async function mirrorIntoFreshStore(
  open: () => Promise<TestStore>,
  options: {
    baseUrl: string;
    sourceOrg: string;
    orgId: string;
    created: number;
  } & Pick<MirrorOptions, 'itemsPerPage' | 'onRejected'>,
): Promise<{ summary: MirrorSummary; events: StoredEvent[] }> {
  const { store, drop } = await open();
  try {
    await store.createOrg({ id: options.orgId, name: 'Mirror copy', created: options.created });
    const summary = await runMirror({
      store,
      orgId: options.orgId,
      itemsPerPage: options.itemsPerPage,
      onRejected: options.onRejected,
      source: {
        baseUrl: options.baseUrl,
        orgId: options.sourceOrg,
        publicKey: 'p',
        privateKey: 'k',
      },
    });
    const page = await store.listEvents({
      orgId: options.orgId,
      offset: 0,
      limit: 100,
      includeCount: true,
      includeRaw: false,
    });
    return { summary, events: page.events };
  } finally {
    await store.close();
    await drop();
  }
}

/** A GROUP_CREATED event of `orgId` as a source lists it, created at `at` (ms, in the served form). */
export function groupCreatedDocument(options: {
  at: number;
  id: string;
  orgId: string;
  groupId: string;
}): Record<string, unknown> {
  return {
    created: formatCreated(options.at),
    eventTypeName: 'GROUP_CREATED',
    groupId: options.groupId,
    id: options.id,
    isGlobalAdmin: false,
    links: [],
    orgId: options.orgId,
  };
}
