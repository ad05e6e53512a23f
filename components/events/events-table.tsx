'use client';

import {
  type CellContext,
  type Row,
  createColumnHelper,
  flexRender,
  getCoreRowModel,
  useReactTable,
} from '@tanstack/react-table';
import {
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  type FocusEvent,
  memo,
} from 'react';
import {
  type ApiEvent,
  eventActor,
  eventLabel,
  eventResource,
  eventResourceLines,
  eventSummary,
  eventTarget,
} from '@/lib/events/present';
import {
  formatRelative,
  formatTimestamp,
  formatZoneOffset,
  parseApiDateTime,
  UTC_ZONE,
  zoneName,
} from '@/lib/format/date';

/** What cells need beyond the row: the zone to show times in and link targets. */
export type EventsTableMeta = {
  zone: string;
  localZone: string;
  eventHref: (eventId: string) => string;
};

const column = createColumnHelper<ApiEvent>();

function meta(context: { table: { options: { meta?: unknown } } }): EventsTableMeta {
  return context.table.options.meta as EventsTableMeta;
}

/** Relative time (and the other zone) computed at hover time, so it is never stale. */
function describeMoment(target: HTMLElement, millis: number, zone: string, localZone: string) {
  const other = zone === UTC_ZONE ? localZone : UTC_ZONE;
  const otherText =
    other === zone ? '' : `\n${formatTimestamp(millis, other)} ${formatZoneOffset(millis, other)}`;
  target.title = `${formatRelative(millis, Date.now())}${otherText}`;
}

function TimeCell(context: CellContext<ApiEvent, string>) {
  const { zone, localZone } = meta(context);
  const iso = context.getValue();
  const millis = parseApiDateTime(iso);
  if (millis === null) return <span className="line">{iso}</span>;
  const onHover = (event: PointerEvent<HTMLElement> | FocusEvent<HTMLElement>) =>
    describeMoment(event.currentTarget, millis, zone, localZone);
  return (
    <time className="line" dateTime={iso} onPointerEnter={onHover} onFocus={onHover}>
      {formatTimestamp(millis, zone)}
    </time>
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
    </>
  );
}

function ActorCell(context: CellContext<ApiEvent, unknown>) {
  const actor = eventActor(context.row.original);
  if (actor.kind === 'none') return <span className="line muted">System</span>;
  return (
    <>
      <span className="line" title={actor.label}>
        {actor.label}
      </span>
      <span className="sub">{actor.kind === 'user' ? 'User' : 'API key'}</span>
    </>
  );
}

function TargetCell(context: CellContext<ApiEvent, unknown>) {
  const target = eventTarget(context.row.original);
  if (!target) return <span className="muted">—</span>;
  return (
    <>
      <span className="line" title={target.label}>
        {target.label}
      </span>
      <span className="sub">{target.kind}</span>
    </>
  );
}

function ResourceCell(context: CellContext<ApiEvent, unknown>) {
  const event = context.row.original;
  const { primary, secondary } = eventResourceLines(event);
  if (!primary) return <span className="muted">—</span>;
  return (
    <span title={eventResource(event)}>
      <span className="line">{primary}</span>
      {secondary ? <span className="sub mono">{secondary}</span> : null}
    </span>
  );
}

function TextCell({ value, mono = false }: { value: string; mono?: boolean }) {
  if (!value) return <span className="muted">—</span>;
  return (
    <span className={mono ? 'line mono' : 'line'} title={value}>
      {value}
    </span>
  );
}

/** Defined once: cells read the zone from table meta, so columns never rebuild. */
const COLUMNS = [
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
    cell: (context) => (
      <TextCell
        value={
          typeof context.row.original.remoteAddress === 'string'
            ? context.row.original.remoteAddress
            : ''
        }
        mono
      />
    ),
  }),
  column.display({
    id: 'summary',
    header: 'Summary',
    cell: (context) => <TextCell value={eventSummary(context.row.original)} />,
  }),
];

type RowProps = {
  row: Row<ApiEvent>;
  index: number;
  ariaRowIndex: number;
  isActive: boolean;
  isFocusTarget: boolean;
  zone: string;
};

/** Re-renders only when its own event, activity or the zone changes. */
const EventRow = memo(function EventRow({
  row,
  index,
  ariaRowIndex,
  isActive,
  isFocusTarget,
}: RowProps) {
  return (
    <tr
      data-index={index}
      data-event-id={row.original.id}
      aria-rowindex={ariaRowIndex}
      aria-selected={isActive}
      tabIndex={isFocusTarget ? 0 : -1}
    >
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} className={`col-${cell.column.id}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
});

type Props = {
  events: ApiEvent[];
  totalCount: number;
  offset: number;
  page: number;
  pageSize: number;
  meta: EventsTableMeta;
  activeIndex: number | null;
  busy: boolean;
  caption: string;
  onActivate: (index: number) => void;
  onOpen: (index: number) => void;
  onRowKeyDown: (event: KeyboardEvent<HTMLTableSectionElement>) => void;
};

export function EventsTable({
  events,
  totalCount,
  offset,
  page,
  pageSize,
  meta: tableMeta,
  activeIndex,
  busy,
  caption,
  onActivate,
  onOpen,
  onRowKeyDown,
}: Props) {
  // Server-side pagination: the table shows one page and knows the total.
  // Rows are memoized by hand (EventRow), so the compiler skipping this is fine.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: events,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (event) => event.id,
    manualPagination: true,
    rowCount: totalCount,
    state: { pagination: { pageIndex: page - 1, pageSize } },
    meta: tableMeta,
  });
  const rows = table.getRowModel().rows;
  const focusIndex = activeIndex !== null && activeIndex < rows.length ? activeIndex : 0;

  const rowIndexOf = (target: EventTarget | null): number | null => {
    const element = (target as HTMLElement | null)?.closest?.('tr[data-index]');
    if (!element) return null;
    const index = Number(element.getAttribute('data-index'));
    return Number.isInteger(index) ? index : null;
  };

  const onClick = (event: MouseEvent<HTMLTableSectionElement>) => {
    const index = rowIndexOf(event.target);
    if (index === null) return;
    const link = (event.target as HTMLElement).closest('a');
    // Modified clicks on the link open the full page in a new tab as usual.
    if (link && (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0)) return;
    event.preventDefault();
    onOpen(index);
  };

  const onFocus = (event: FocusEvent<HTMLTableSectionElement>) => {
    const index = rowIndexOf(event.target);
    if (index !== null && index !== activeIndex) onActivate(index);
  };

  return (
    <div className="table-wrap">
      <table className="events" aria-rowcount={totalCount + 1} aria-busy={busy}>
        <caption className="visually-hidden">{caption}</caption>
        <colgroup>
          {table.getVisibleLeafColumns().map((col) => (
            <col key={col.id} className={`col-${col.id}`} />
          ))}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className={`col-${header.column.id}`}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody onClick={onClick} onKeyDown={onRowKeyDown} onFocus={onFocus}>
          {rows.map((row, index) => (
            <EventRow
              key={row.id}
              row={row}
              index={index}
              ariaRowIndex={offset + index + 2}
              isActive={index === activeIndex}
              isFocusTarget={index === focusIndex}
              zone={tableMeta.zone}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Placeholder rows with the table's own shape while the first page loads. */
export function EventsTableSkeleton({ rows }: { rows: number }) {
  return (
    <div className="table-wrap" aria-hidden="true">
      <table className="events">
        <colgroup>
          {COLUMNS.map((col) => (
            <col key={col.id} className={`col-${col.id}`} />
          ))}
        </colgroup>
        <thead>
          <tr>
            {[
              'Time',
              'Event type',
              'Actor',
              'Target',
              'Project / cluster / host',
              'Remote address',
              'Summary',
            ].map((title) => (
              <th key={title} scope="col">
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: rows }, (_, index) => (
            <tr key={index}>
              {COLUMNS.map((col) => (
                <td key={col.id}>
                  <span
                    className="skeleton-line"
                    style={{ width: `${55 + ((index * 7 + col.id!.length * 13) % 40)}%` }}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
