'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Fragment, type KeyboardEvent, type ReactNode, useId, useRef, useState } from 'react';
import { CopyButton } from '@/components/copy-button';
import { useNow } from '@/components/use-now';
import { JsonTree } from '@/components/json-tree';
import { ErrorNoticeFrame, RetryButton, loadFailureText } from '@/components/notices';
import {
  type ApiEvent,
  eventActor,
  eventDetailSections,
  eventLabel,
  eventSummary,
  longAgo,
} from '@/lib/client/present';
import {
  ApiRequestError,
  eventQueryOptions,
  eventSourceQueryOptions,
} from '@/lib/client/api-client';
import { compactJson, prettyJson, sourceMember } from '@/lib/domain/json-text';
import { type Pivot, columnPivots, fieldPivot } from '@/lib/client/pivots';
import { UTC_ZONE, formatLongTimestamp, parseApiDateTime } from '@/lib/domain/dates';
import { FilterIcon } from '@/components/filter-icon';
import { AROUND_MINUTES, type EventTab } from '@/lib/client/url-state';

type Props = {
  orgId: string;
  eventId: string;
  zone: string;
  localZone: string;
  /** h1 on the event's own page, h2 inside the side panel. */
  headingLevel: 'h1' | 'h2';
  titleId: string;
  /** The event as the list already has it, so the panel paints at once. */
  initialEvent?: ApiEvent;
  /** The link that reopens exactly this view. */
  permalink: () => string;
  /** The event's own page, opening on the tab being read. */
  fullPageHref?: (tab: EventTab) => string;
  /** The tab shown first (default details). */
  initialTab?: EventTab;
  /** Told of each change of tab (the event's own page keeps it in its URL). */
  onTabChange?: (tab: EventTab) => void;
  /** Click-to-filter from a field ("everything by this actor") and "±5 minutes"; none when absent. */
  filters?: DetailFilters;
};

/**
 * What one of the detail's filters does: beside the table (the panel) it
 * narrows the table in place; on the event's own page, which has no table,
 * it is a link to the organization's table so narrowed.
 */
export type DetailAction = { onClick: () => void } | { href: string };

export type DetailFilters = {
  /** Only this value (or, for an event type, everything but it). */
  pivot: (pivot: Pivot, exclude: boolean) => DetailAction;
  /** Every event in the minutes around this one; null when its time cannot be read. */
  around: (eventId: string, created: string) => DetailAction | null;
};

/** A filter of the detail as a button or a link, as its action asks. */
function ActionControl({
  action,
  className,
  label,
  title,
  children,
}: {
  action: DetailAction;
  className: string;
  label?: string;
  title: string;
  children: ReactNode;
}) {
  if ('href' in action) {
    return (
      <Link className={className} href={action.href} aria-label={label} title={title}>
        {children}
      </Link>
    );
  }
  return (
    <button
      type="button"
      className={className}
      aria-label={label}
      title={title}
      onClick={action.onClick}
    >
      {children}
    </button>
  );
}

/** "Only this value" beside a filterable field. */
function FieldFilter({
  pivot,
  filters,
}: {
  pivot: Pivot | null;
  filters: DetailFilters | undefined;
}) {
  if (!pivot || !filters) return null;
  return (
    <ActionControl
      action={filters.pivot(pivot, false)}
      className="detail-filter"
      label={`Only ${pivot.label}`}
      title={`Only ${pivot.label}`}
    >
      <FilterIcon />
    </ActionControl>
  );
}

function DetailSkeleton() {
  return (
    <div aria-hidden="true">
      {[70, 45, 90, 60, 80, 50].map((width, index) => (
        <span key={index} className="skeleton-line" style={{ width: `${width}%` }} />
      ))}
    </div>
  );
}

function LoadError({ error, onRetry }: { error: Error; onRetry: () => void }) {
  // A malformed id (400) is as absent as an unknown one (404).
  const notFound =
    error instanceof ApiRequestError && (error.status === 404 || error.status === 400);
  if (notFound) {
    return (
      <ErrorNoticeFrame title="Event not found">
        No event with this id exists in this organization.
      </ErrorNoticeFrame>
    );
  }
  return (
    <ErrorNoticeFrame
      title="The event could not be loaded"
      actions={<RetryButton onRetry={onRetry} />}
    >
      {loadFailureText(error)}
    </ErrorNoticeFrame>
  );
}

function Moment({ iso, zone, localZone }: { iso: string; zone: string; localZone: string }) {
  const now = useNow();
  const millis = parseApiDateTime(iso);
  if (millis === null) return <>{iso}</>;
  const other = zone === UTC_ZONE ? localZone : UTC_ZONE;
  return (
    <>
      <time dateTime={iso}>{formatLongTimestamp(millis, zone)}</time>
      <span className="hint">
        {' '}
        {now !== null ? `· ${longAgo(millis, now)}` : ''}
        {other !== zone ? ` · ${formatLongTimestamp(millis, other)}` : ''}
      </span>
    </>
  );
}

function DetailsTab({
  event,
  zone,
  localZone,
  filters,
  sectionHeading: Section,
}: {
  event: ApiEvent;
  zone: string;
  localZone: string;
  filters: DetailFilters | undefined;
  sectionHeading: 'h2' | 'h3';
}) {
  const summary = eventSummary(event);
  const actor = eventActor(event);
  const links = Array.isArray(event.links) ? event.links : [];
  return (
    <>
      <section>
        <Section className="section-title">Overview</Section>
        <dl>
          <dt>Time</dt>
          <dd className="plain">
            <Moment iso={event.created} zone={zone} localZone={localZone} />
          </dd>
          <dt>Event ID</dt>
          <dd>{event.id}</dd>
          <dt>Actor</dt>
          <dd className="plain">
            {actor.kind === 'none'
              ? 'System'
              : `${actor.label} (${actor.kind === 'user' ? 'user' : 'API key'})`}
            <FieldFilter pivot={columnPivots(event, 'actor')[0] ?? null} filters={filters} />
          </dd>
          {summary ? (
            <>
              <dt>Summary</dt>
              <dd className="plain">{summary}</dd>
            </>
          ) : null}
        </dl>
      </section>
      {eventDetailSections(event).map((section) => (
        <section key={section.title}>
          <Section className="section-title">{section.title}</Section>
          <dl>
            {section.fields.map((field) => (
              <Fragment key={field.field}>
                <dt title={field.field}>{field.label}</dt>
                <dd>
                  {field.value}
                  <FieldFilter pivot={fieldPivot(event, field.field)} filters={filters} />
                </dd>
              </Fragment>
            ))}
          </dl>
        </section>
      ))}
      {links.length ? (
        <section>
          <Section className="section-title">Related links</Section>
          <ul className="links">
            {links.map((link) => (
              <li key={`${link.rel}-${link.href}`}>
                <span className="muted">{link.rel}: </span>
                <a href={link.href} target="_blank" rel="noreferrer">
                  {link.href}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

function RawTab({ orgId, eventId }: { orgId: string; eventId: string }) {
  const raw = useQuery(eventSourceQueryOptions(orgId, eventId));
  if (raw.isPending) {
    return (
      <div role="status" aria-label="Loading raw document">
        <DetailSkeleton />
      </div>
    );
  }
  if (raw.isError) return <LoadError error={raw.error} onRetry={() => void raw.refetch()} />;
  // The source tree, not the parsed event: shown exactly as the API serves it.
  const document = sourceMember(raw.data, 'raw');
  if (document === undefined || document.text === 'null') {
    return <p className="muted">This event has no raw document.</p>;
  }
  return (
    <>
      <p className="hint">
        The raw document as recorded. Its fields vary by event and are not a stable interface.
      </p>
      <JsonTree
        value={document}
        label="Raw document"
        actions={
          <CopyButton text={() => prettyJson(compactJson(document.text))} label="Copy raw JSON" />
        }
      />
    </>
  );
}

/** Every field in readable form, related links, and a Raw tab fetched with includeRaw=true. */
export function EventDetail({
  orgId,
  eventId,
  zone,
  localZone,
  headingLevel,
  titleId,
  initialEvent,
  permalink,
  fullPageHref,
  initialTab = 'details',
  onTabChange,
  filters,
}: Props) {
  const [tab, setShownTab] = useState<EventTab>(initialTab);
  const setTab = (next: EventTab) => {
    setShownTab(next);
    onTabChange?.(next);
  };
  const query = useQuery({
    ...eventQueryOptions(orgId, eventId, false),
    initialData: initialEvent,
  });
  const tabsId = useId();
  const detailsTabRef = useRef<HTMLButtonElement>(null);
  const rawTabRef = useRef<HTMLButtonElement>(null);
  // Focusable from script only: the event's page moves focus to it on arrival.
  const Heading = headingLevel;

  if (query.isPending) {
    return (
      <div className="detail" role="status" aria-label="Loading event">
        <Heading id={titleId} tabIndex={-1} className="detail-title">
          Event {eventId}
        </Heading>
        <DetailSkeleton />
      </div>
    );
  }
  if (query.isError) {
    return (
      <div className="detail">
        <Heading id={titleId} tabIndex={-1} className="detail-title visually-hidden">
          Event {eventId}
        </Heading>
        <LoadError error={query.error} onRetry={() => void query.refetch()} />
      </div>
    );
  }

  const event = query.data;
  const around = filters?.around(event.id, event.created) ?? null;
  const onTabKey = (keyEvent: KeyboardEvent<HTMLDivElement>) => {
    if (keyEvent.key !== 'ArrowLeft' && keyEvent.key !== 'ArrowRight') return;
    keyEvent.preventDefault();
    const next: EventTab = tab === 'details' ? 'raw' : 'details';
    setTab(next);
    (next === 'raw' ? rawTabRef : detailsTabRef).current?.focus();
  };

  return (
    <div className="detail">
      <Heading id={titleId} tabIndex={-1} className="detail-title">
        {eventLabel(event)}
      </Heading>
      <div className="type-code">{event.eventTypeName}</div>
      <div className="detail-actions">
        {filters ? (
          <>
            <ActionControl
              action={filters.pivot(columnPivots(event, 'type')[0]!, false)}
              className="button small"
              title={`Only events of type ${event.eventTypeName}`}
            >
              Only this type
            </ActionControl>
            <ActionControl
              action={filters.pivot(columnPivots(event, 'type')[0]!, true)}
              className="button small"
              title={`Every event but those of type ${event.eventTypeName}`}
            >
              Leave out this type
            </ActionControl>
          </>
        ) : null}
        {around ? (
          <ActionControl
            action={around}
            className="button small"
            title={`Every event from ${AROUND_MINUTES} minutes before this one to ${AROUND_MINUTES} minutes after, no other filter`}
          >
            ±{AROUND_MINUTES} minutes
          </ActionControl>
        ) : null}
        <CopyButton text={permalink} label="Copy permalink" />
        {fullPageHref ? (
          <Link className="button small" href={fullPageHref(tab)}>
            Open full page
          </Link>
        ) : null}
      </div>
      <div className="tabs" role="tablist" aria-label="Event views" onKeyDown={onTabKey}>
        <button
          ref={detailsTabRef}
          type="button"
          role="tab"
          id={`${tabsId}-details-tab`}
          aria-selected={tab === 'details'}
          aria-controls={`${tabsId}-details`}
          tabIndex={tab === 'details' ? 0 : -1}
          onClick={() => setTab('details')}
        >
          Details
        </button>
        <button
          ref={rawTabRef}
          type="button"
          role="tab"
          id={`${tabsId}-raw-tab`}
          aria-selected={tab === 'raw'}
          aria-controls={`${tabsId}-raw`}
          tabIndex={tab === 'raw' ? 0 : -1}
          onClick={() => setTab('raw')}
        >
          Raw
        </button>
      </div>
      {tab === 'details' ? (
        <div role="tabpanel" id={`${tabsId}-details`} aria-labelledby={`${tabsId}-details-tab`}>
          <DetailsTab
            event={event}
            zone={zone}
            localZone={localZone}
            filters={filters}
            // One level under the title: a page's h1 is followed by h2s (they
            // were h3s, a level skipped), the panel's h2 by h3s.
            sectionHeading={headingLevel === 'h1' ? 'h2' : 'h3'}
          />
        </div>
      ) : (
        <div role="tabpanel" id={`${tabsId}-raw`} aria-labelledby={`${tabsId}-raw-tab`}>
          <RawTab orgId={orgId} eventId={eventId} />
        </div>
      )}
    </div>
  );
}
