'use client';

import { type CellContext, createColumnHelper } from '@tanstack/react-table';
import type { FocusEvent, PointerEvent } from 'react';
import type { PivotColumn } from '@/lib/client/pivots';
import {
  type ApiEvent,
  eventActor,
  eventLabel,
  eventResourceLines,
  eventSummary,
  eventTarget,
  longAgo,
  shortAgo,
} from '@/lib/client/present';
import {
  formatTimestamp,
  formatZonedTimestamp,
  parseApiDateTime,
  UTC_ZONE,
  zoneName,
} from '@/lib/domain/dates';
import { FilterIcon } from '@/components/filter-icon';

/**
 * The events table's columns: time, type, actor, target, place, remote
 * address and a one-line summary, each cell drawn from lib/client/present.
 */

/** What cells need beyond the row: the zone to show times in and link targets. */
export type EventsTableMeta = {
  zone: string;
  localZone: string;
  eventHref: (eventId: string) => string;
  /** The current time for relative labels; null on the server and while hydrating. */
  now: number | null;
  /** The events picked for comparison. */
  picked: ReadonlySet<string>;
  onPick: (eventId: string) => void;
};

const column = createColumnHelper<ApiEvent>();

function meta(context: { table: { options: { meta?: unknown } } }): EventsTableMeta {
  return context.table.options.meta as EventsTableMeta;
}

/** Relative time (and the other zone) computed at hover time, so it is never stale. */
function describeMoment(target: HTMLElement, millis: number, zone: string, localZone: string) {
  const other = zone === UTC_ZONE ? localZone : UTC_ZONE;
  const otherText = other === zone ? '' : `\n${formatZonedTimestamp(millis, other)}`;
  target.title = `${longAgo(millis, Date.now())}${otherText}`;
}

/**
 * Every cell of a column has the same element structure whatever the event,
 * so moving to another page only rewrites text and attributes: no elements
 * are removed or created (rows are keyed by position).
 */
function TwoLines({
  line,
  sub,
  muted = false,
  mono = false,
}: {
  line: string;
  sub: string;
  muted?: boolean;
  mono?: boolean;
}) {
  return (
    <>
      <span className={muted ? 'line muted' : mono ? 'line mono' : 'line'}>{line}</span>
      <span className="sub">{sub}</span>
    </>
  );
}

/**
 * Opens the cell's click-to-filter menu (the table handles the click, see
 * events-table.tsx). Always rendered, hidden when the cell has nothing to
 * filter on, so rows keep one element structure.
 */
function FilterButton({ column, hidden = false }: { column: PivotColumn; hidden?: boolean }) {
  return (
    <button
      type="button"
      className="cell-filter"
      tabIndex={-1}
      data-pivot={column}
      aria-label="Filter on this value"
      title="Filter on this value"
      hidden={hidden}
    >
      <FilterIcon />
    </button>
  );
}

/** Absolute time in the chosen zone, and how long ago under it ("3 h ago"). */
function TimeCell(context: CellContext<ApiEvent, string>) {
  const { zone, localZone, now } = meta(context);
  const iso = context.getValue();
  const millis = parseApiDateTime(iso);
  const onHover = (event: PointerEvent<HTMLElement> | FocusEvent<HTMLElement>) => {
    if (millis !== null) describeMoment(event.currentTarget, millis, zone, localZone);
  };
  return (
    <>
      <time className="line" dateTime={iso} onPointerEnter={onHover} onFocus={onHover}>
        {millis === null ? iso : formatTimestamp(millis, zone)}
      </time>
      <span className="sub relative">
        {millis === null || now === null ? '' : `· ${shortAgo(millis, now)}`}
      </span>
    </>
  );
}

/** A checkbox to pick the event for comparison (Space on a focused row does the same). */
function PickCell(context: CellContext<ApiEvent, unknown>) {
  const { picked, onPick } = meta(context);
  const event = context.row.original;
  return (
    <input
      type="checkbox"
      className="pick"
      tabIndex={-1}
      checked={picked.has(event.id)}
      onChange={() => onPick(event.id)}
      aria-label={`Pick ${eventLabel(event)} ${event.id} to compare`}
    />
  );
}

function TypeCell(context: CellContext<ApiEvent, string>) {
  const event = context.row.original;
  return (
    <>
      {/* A real link for middle-click / open-in-new-tab; keyboard users open rows with Enter. */}
      <a className="type-link line" href={meta(context).eventHref(event.id)} tabIndex={-1}>
        {eventLabel(event)}
      </a>
      <span className="sub mono">{event.eventTypeName}</span>
      <FilterButton column="type" />
    </>
  );
}

function ActorCell(context: CellContext<ApiEvent, unknown>) {
  const actor = eventActor(context.row.original);
  return (
    <>
      {actor.kind === 'none' ? (
        <TwoLines line="System" sub="" muted />
      ) : (
        <TwoLines line={actor.label} sub={actor.kind === 'user' ? 'User' : 'API key'} />
      )}
      <FilterButton column="actor" hidden={actor.kind === 'none'} />
    </>
  );
}

function TargetCell(context: CellContext<ApiEvent, unknown>) {
  const event = context.row.original;
  const target = eventTarget(event);
  const filterable = ['targetUsername', 'targetPublicKey', 'teamId'].some(
    (field) => typeof event[field] === 'string',
  );
  return (
    <>
      {target ? (
        <TwoLines line={target.label} sub={target.kind} />
      ) : (
        <TwoLines line="—" sub="" muted />
      )}
      <FilterButton column="target" hidden={!filterable} />
    </>
  );
}

function ResourceCell(context: CellContext<ApiEvent, unknown>) {
  const { primary, secondary } = eventResourceLines(context.row.original);
  return (
    <>
      {primary ? <TwoLines line={primary} sub={secondary} /> : <TwoLines line="—" sub="" muted />}
      <FilterButton column="resource" hidden={!primary} />
    </>
  );
}

function TextCell({ value, mono = false }: { value: string; mono?: boolean }) {
  if (!value) return <TwoLines line="—" sub="" muted />;
  return <TwoLines line={value} sub="" mono={mono} />;
}

/** Defined once: cells read the zone from table meta, so columns never rebuild. */
export const COLUMNS = [
  column.display({
    id: 'select',
    header: () => <span className="visually-hidden">Pick to compare</span>,
    cell: PickCell,
  }),
  column.accessor('created', {
    id: 'time',
    header: (context) => `Time (${zoneName(meta(context).zone)})`,
    cell: TimeCell,
  }),
  column.accessor('eventTypeName', { id: 'type', header: 'Event type', cell: TypeCell }),
  column.display({ id: 'actor', header: 'Actor', cell: ActorCell }),
  column.display({ id: 'target', header: 'Target', cell: TargetCell }),
  column.display({
    id: 'resource',
    header: 'Project / cluster / host',
    cell: ResourceCell,
  }),
  column.display({
    id: 'remote',
    header: 'Remote address',
    cell: (context) => {
      const address =
        typeof context.row.original.remoteAddress === 'string'
          ? context.row.original.remoteAddress
          : '';
      return (
        <>
          <TextCell value={address} mono />
          <FilterButton column="remote" hidden={!address} />
        </>
      );
    },
  }),
  column.display({
    id: 'summary',
    header: 'Summary',
    cell: (context) => <TextCell value={eventSummary(context.row.original)} />,
  }),
];
