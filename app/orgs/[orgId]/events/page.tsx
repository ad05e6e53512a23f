import { HydrationBoundary, dehydrate } from '@tanstack/react-query';
import type { Metadata } from 'next';
import { AppHeader } from '@/components/app-header';
import { EventsExplorer } from '@/components/events/events-explorer';
import { orgPageTitle, readableOrg } from '@/lib/dashboard/org-access';
import { callApi, localZoneHint, requireSession } from '@/lib/dashboard/server';
import type { ApiEvent } from '@/lib/client/present';
import { type EventList, eventQueryKey, eventsListQueryKey } from '@/lib/client/api-client';
import {
  apiEventPath,
  apiListPath,
  eventsViewHref,
  listParams,
  parseEventsView,
  serializeEventsView,
} from '@/lib/client/url-state';
import { makeQueryClient } from '@/lib/client/query-client';
import { unlessUnavailable } from '@/app/unavailable';

type Props = {
  params: Promise<{ orgId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await orgPageTitle((await params).orgId, 'Events') };
}

/**
 * `/orgs/[orgId]/events`: the first page is fetched in-process through the
 * public API as the signed-in key and handed to react-query, so the first
 * paint already has rows; everything after runs in the browser.
 */
export default async function EventsPage(props: Props) {
  return unlessUnavailable(() => eventsPage(props));
}

async function eventsPage({ params, searchParams }: Props) {
  const { orgId } = await params;
  const zone = await localZoneHint();
  const view = parseEventsView(await searchParams, zone);
  const principal = await requireSession(eventsViewHref(orgId, view, zone));

  const org = await readableOrg(orgId);

  const queryClient = makeQueryClient();
  const list = listParams(orgId, view);
  const search = serializeEventsView(view, zone);
  const [page, openEvent] = await Promise.all([
    callApi<EventList>(apiListPath(list)),
    view.event ? callApi<ApiEvent>(apiEventPath(orgId, view.event, false)) : null,
  ]);
  // A failed first page is left to the browser, which shows the error with a retry.
  if (page.ok) queryClient.setQueryData(eventsListQueryKey(list), page.body);
  if (view.event && openEvent?.ok) {
    queryClient.setQueryData(eventQueryKey(orgId, view.event, false), openEvent.body);
  }

  return (
    <>
      <AppHeader publicKey={principal.publicKey} org={{ id: org.id, name: org.name }} />
      <HydrationBoundary state={dehydrate(queryClient)}>
        <EventsExplorer
          orgId={org.id}
          orgName={org.name}
          publicKey={principal.publicKey}
          serverZone={zone}
          serverSearch={search ? `?${search}` : ''}
        />
      </HydrationBoundary>
    </>
  );
}
