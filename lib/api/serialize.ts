import type { Variant } from '@/lib/config';
import { canonicalJson } from '@/lib/domain/encode';
import type { StoredEvent } from '@/lib/domain/event';
import { eventHref, type Link } from './links';
import type { ResponseFormat } from './types';

/**
 * Response bodies are built by splicing JSON text: the store hands us each
 * event's canonical document, so a page of 500 events costs string
 * concatenation, not 500 parse/stringify round trips.
 */

/** Fields the self-hosted variant never returns (spec: hosted variant only). */
const HOSTED_ONLY_FIELDS = ['invoiceId', 'paymentId'] as const;

function withoutHostedOnlyFields(doc: string): string {
  if (!doc.includes('"invoiceId"') && !doc.includes('"paymentId"')) return doc;
  const fields = JSON.parse(doc) as Record<string, unknown>;
  for (const field of HOSTED_ONLY_FIELDS) delete fields[field];
  return canonicalJson(fields);
}

/** One event as the API returns it: its fields, its `self` link, and `raw` when asked for. */
export function eventJson(
  event: StoredEvent,
  base: string,
  options: { includeRaw: boolean; variant: Variant },
): string {
  const doc = options.variant === 'self-hosted' ? withoutHostedOnlyFields(event.doc) : event.doc;
  const links = `"links":[{"href":${JSON.stringify(eventHref(base, event.orgId, event.id))},"rel":"self"}]`;
  const raw = options.includeRaw && event.raw !== null ? `,"raw":${event.raw}` : '';
  const open = doc === '{}' ? '{' : `${doc.slice(0, -1)},`;
  return `${open}${links}${raw}}`;
}

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
  return format.pretty ? JSON.stringify(JSON.parse(body), null, 2) : body;
}
