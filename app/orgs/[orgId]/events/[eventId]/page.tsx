import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { cache } from 'react';
import { AppHeader } from '@/components/app-header';
import { EventPage } from '@/components/events/event-page';
import { readableOrg } from '@/lib/dashboard/org-access';
import { callApi, localZoneHint, requireSession } from '@/lib/dashboard/server';
import { type ApiEvent, eventPageTitle } from '@/lib/client/present';
import { eventQueryKey } from '@/lib/client/api-client';
import { apiEventPath, eventPageHref, parseEventTab } from '@/lib/client/url-state';
import { makeQueryClient } from '@/lib/client/query-client';
import { unlessUnavailable } from '@/app/unavailable';
import { UTC_ZONE } from '@/lib/domain/dates';

type Props = {
  params: Promise<{ orgId: string; eventId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** The event as the signed-in key reads it: asked once per request, for the title and the page alike. */
const readEvent = cache((orgId: string, eventId: string) =>
  callApi<ApiEvent>(apiEventPath(orgId, eventId, false)),
);

/**
 * The tab's title names the event (type and time in the page's zone): every
 * event page was "Event", alike in tabs and history. An event the key cannot
 * read (no session, no access, not found) is named by the id in the URL only.
 */
export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const { orgId, eventId } = await params;
  const zone = (await searchParams).tz === 'local' ? await localZoneHint() : UTC_ZONE;
  const event = await readEvent(orgId, eventId);
  return { title: eventPageTitle(eventId, event.ok ? event.body : null, zone) };
}

/** `/orgs/[orgId]/events/[eventId]`: one event on its own page, rendered on the server. */
export default async function EventDetailPage(props: Props) {
  return unlessUnavailable(() => eventDetailPage(props));
}

async function eventDetailPage({ params, searchParams }: Props) {
  const { orgId, eventId } = await params;
  const search = await searchParams;
  const tz = search.tz === 'local' ? 'local' : 'utc';
  const tab = parseEventTab(search.tab);
  const zone = await localZoneHint();
  const principal = await requireSession(eventPageHref(orgId, eventId, { tz, tab }));

  const org = await readableOrg(orgId);

  const queryClient = makeQueryClient();
  const event = await readEvent(orgId, eventId);
  // Not found (or a malformed id) is shown by the client from the same query.
  if (event.ok) queryClient.setQueryData(eventQueryKey(orgId, eventId, false), event.body);

  return (
    <>
      <AppHeader publicKey={principal.publicKey} org={{ id: org.id, name: org.name }} />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <EventPage orgId={org.id} eventId={eventId} tz={tz} tab={tab} serverZone={zone} />
      </HydrationBoundary>
    </>
  );
}
