import type { Variant } from '@/lib/config';
import type { StoredEvent } from '@/lib/domain/event';
import { prettyJson, spliceMembers } from '@/lib/domain/json-text';
import { isObjectId } from '@/lib/domain/object-id';
import { eventHref, type Link } from './links';
import type { ResponseFormat } from './types';

/**
 * Response bodies are built by splicing JSON text: the store hands us each
 * event's document (top-level keys sorted, values as the source wrote them),
 * so a page of 500 events costs string work, not 500 parse/stringify round
 * trips, and nothing is ever re-serialized: a big integer or a `1.0` in an
 * imported event comes back as it went in.
 */

/** Fields the self-hosted variant never returns (spec: hosted variant only). */
export const HOSTED_ONLY_FIELDS: ReadonlySet<string> = new Set(['invoiceId', 'paymentId']);

/**
 * One event as the API returns it: its fields, its `self` link and `raw`
 * when asked for, every key in alphabetical order as the real service
 * writes them (`links` and `raw` in their places among the fields).
 */
export function eventJson(
  event: StoredEvent,
  base: string,
  options: { includeRaw: boolean; variant: Variant },
): string {
  const links = `[{"href":${hrefJson(base, event.orgId, event.id)},"rel":"self"}]`;
  const insert: [string, string][] = [['links', links]];
  if (options.includeRaw && event.raw !== null) insert.push(['raw', event.raw]);
  const drop =
    options.variant === 'self-hosted' &&
    (event.doc.includes('"invoiceId"') || event.doc.includes('"paymentId"'))
      ? HOSTED_ONLY_FIELDS
      : undefined;
  return spliceMembers(event.doc, insert, drop);
}

/**
 * An event's `self` href as a JSON string. Every event of a page or an
 * export shares the org and base, so the quoted text up to the id is made
 * once and the id (an ObjectId: hex digits, nothing to escape) appended:
 * JSON.stringify of each whole href was a twentieth of an export's time.
 */
function hrefJson(base: string, orgId: string, eventId: string): string {
  if (!isObjectId(eventId)) return JSON.stringify(eventHref(base, orgId, eventId));
  if (hrefPrefix.base !== base || hrefPrefix.orgId !== orgId) {
    // The quoted href of an empty id, less its closing quote.
    hrefPrefix = { base, orgId, text: JSON.stringify(eventHref(base, orgId, '')).slice(0, -1) };
  }
  return `${hrefPrefix.text}${eventId}"`;
}
let hrefPrefix = { base: '', orgId: '', text: '' };

/** A list body; keys in the real service's order: links, results, totalCount. */
export function listJson(
  links: readonly Link[],
  items: readonly string[],
  totalCount: number,
): string {
  return `{"links":${JSON.stringify(links)},"results":[${items.join(',')}],"totalCount":${totalCount}}`;
}

/**
 * Applies envelope and pretty to a finished body. envelope=true wraps one
 * object as `{status, content}`; a list is its own envelope and gains
 * `status`. pretty=true re-indents (2 spaces), same content.
 */
export function formatBody(
  json: string,
  status: number,
  format: ResponseFormat,
  shape: 'object' | 'list',
): string {
  let body = json;
  if (format.envelope) {
    body =
      shape === 'list'
        ? `${json.slice(0, -1)},"status":${status}}`
        : `{"status":${status},"content":${json}}`;
  }
  // Re-indented as text: parsing would round big integers and drop `.0`.
  return format.pretty ? prettyJson(body) : body;
}
