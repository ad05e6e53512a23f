'use client';

import Link from 'next/link';
import { useEffect, useId, useRef, useSyncExternalStore } from 'react';
import { lastListSearch } from '@/lib/client/last-list';
import { type TimeZoneMode, zoneFor } from '@/lib/domain/dates';
import {
  DEFAULT_VIEW,
  type EventTab,
  type EventsView,
  aroundEvent,
  eventPageHref,
  eventsPath,
  eventsViewHref,
  pivotedView,
} from '@/lib/client/url-state';
import { type DetailFilters, EventDetail } from './event-detail';
import { subscribeNever, useLocalZone } from './use-events-view';

type Props = {
  orgId: string;
  eventId: string;
  tz: TimeZoneMode;
  /** The tab the URL asks for (`?tab=raw`). */
  tab: EventTab;
  serverZone: string;
};

/** The full-page form of the event detail, reachable by permalink. */
export function EventPage({ orgId, eventId, tz, tab, serverZone }: Props) {
  const localZone = useLocalZone(serverZone);
  const titleId = useId();
  // Rendered in the browser rather than hydrated: reached by a link or a
  // history move inside the app, where focus stayed on <body> (the link that
  // had it is gone), so keyboard and screen-reader users start at the
  // heading. A page loaded anew starts at the top, as any page does.
  const renderedInBrowser = useSyncExternalStore(
    subscribeNever,
    () => true,
    () => false,
  );
  const arrivedInApp = useRef(renderedInBrowser);
  useEffect(() => {
    if (arrivedInApp.current) document.getElementById(titleId)?.focus();
  }, [titleId]);
  // The list as this tab last showed it (its filters and page), once known
  // after hydration; a permalink opened on its own links to the whole list.
  // The stored list query changes only on the list's page, never while this one shows.
  const lastSearch = useSyncExternalStore(
    subscribeNever,
    () => lastListSearch(orgId),
    () => null,
  );
  const listHref =
    lastSearch !== null
      ? `${eventsPath(orgId)}${lastSearch}`
      : `${eventsPath(orgId)}${tz === 'local' ? '?tz=local' : ''}`;
  // No table beside it: its filters link to the organization's table,
  // narrowed to the filter alone (the list last shown in this tab may hold
  // others, and a shared link has none), times in this page's zone.
  const tableView: EventsView = { ...DEFAULT_VIEW, tz };
  const filters: DetailFilters = {
    pivot: (pivot, exclude) => ({
      href: eventsViewHref(orgId, pivotedView(tableView, pivot, exclude), localZone),
    }),
    around: (aroundId, created) => {
      const around = aroundEvent(tableView, aroundId, created);
      return around ? { href: eventsViewHref(orgId, around, localZone) } : null;
    },
  };
  return (
    <main id="main" className="page narrow" aria-labelledby={titleId}>
      <p>
        <Link href={listHref}>{lastSearch ? '← Back to the list' : '← All events'}</Link>
      </p>
      <EventDetail
        orgId={orgId}
        eventId={eventId}
        zone={zoneFor(tz, localZone)}
        localZone={localZone}
        headingLevel="h1"
        titleId={titleId}
        initialTab={tab}
        // The URL follows the tab, so the permalink and a reload reopen it.
        // Null state: Next's router then takes the new URL as its own (given
        // its own entry state, it would keep the old one and could restore it).
        onTabChange={(next) =>
          window.history.replaceState(null, '', eventPageHref(orgId, eventId, { tz, tab: next }))
        }
        permalink={() => window.location.href}
        filters={filters}
      />
    </main>
  );
}
