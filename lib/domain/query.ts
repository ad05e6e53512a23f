import { z } from 'zod';
import { DATE_TIME_FORMS, parseDateTime, toApiDateTime } from './dates';
import { DEFAULT_ITEMS_PER_PAGE, EVENT_TYPE_PATTERN, MAX_ITEMS_PER_PAGE } from './limits';

/**
 * The API's query parameters, defined once: lib/api/params.ts parses requests
 * with these schemas and lib/api/openapi.ts documents them from the same
 * schemas (z.toJSONSchema of the decoded values), so a limit, a default or a
 * description cannot differ between the two.
 *
 * Every parameter is a codec from what the query string carries (one string,
 * or every value of a repeatable name) to the value the handlers use. Each
 * check's error message is the rule the 400 INVALID_QUERY_PARAMETER quotes
 * ("must be …"), so the parser maps issues to errors without knowing the rules.
 */

/** `true`/`false` in any letter case, like the real (Java) service; anything else is refused. */
const BOOLEAN_VALUE = z.stringbool({
  truthy: ['true'],
  falsy: ['false'],
  case: 'insensitive',
  error: 'must be true or false',
});

function flag(defaultValue: boolean, description: string) {
  return BOOLEAN_VALUE.default(defaultValue).meta({ description });
}

/** Plain decimal digits (leading zeros allowed): no sign, fraction, exponent, hex or spaces. */
const DECIMAL_DIGITS = /^\d{1,16}$/;

function integer(options: {
  min: number;
  max?: number;
  defaultValue: number;
  description: string;
}) {
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const rule =
    options.max === undefined
      ? `must be an integer of at least ${options.min}`
      : `must be an integer from ${options.min} to ${options.max}`;
  return z
    .codec(
      z.string().regex(DECIMAL_DIGITS, { error: rule }),
      z.int({ error: rule }).min(options.min, { error: rule }).max(max, { error: rule }),
      { decode: Number, encode: String },
    )
    .default(options.defaultValue)
    .meta({ description: options.description });
}

/**
 * A date-time bound, decoded to epoch milliseconds by the one date parser.
 * On the wire and in the document it is a string, hence the documented type.
 */
function dateTime(description: string) {
  return z
    .codec(z.string(), z.number(), {
      decode: (text, payload) => {
        const millis = parseDateTime(text);
        if (millis !== null) return millis;
        payload.issues.push({ code: 'custom', message: `must be ${DATE_TIME_FORMS}`, input: text });
        return z.NEVER;
      },
      encode: toApiDateTime,
    })
    .optional()
    .meta({ description, type: 'string', format: 'date-time' });
}

/**
 * eventType: every value of the repeated name, each possibly a comma list.
 * Items are trimmed, empties dropped and duplicates removed (first kept), so
 * the handler sees each distinct type once, in the order given.
 */
const eventType = z
  .codec(
    z.array(z.string()),
    z.array(
      z.string().regex(EVENT_TYPE_PATTERN, {
        error: 'must be an event type name in upper snake case, e.g. API_KEY_CREATED',
      }),
    ),
    {
      decode: (values) => {
        const types = new Set<string>();
        for (const value of values) {
          for (const item of value.split(',')) {
            const type = item.trim();
            if (type !== '') types.add(type);
          }
        }
        return [...types];
      },
      encode: (types) => types,
    },
  )
  .default([])
  .meta({
    description: [
      'Only events of these types; none means every type. Repeat the parameter',
      '(`eventType=A&eventType=B`) or separate values with commas (`eventType=A,B`). Each value',
      "must be upper snake case (else 400 INVALID_QUERY_PARAMETER) and name a type of this variant's",
      "catalogue or one present in the org's events (else 400 INVALID_ENUM_VALUE). See",
      '`/orgs/{orgId}/eventTypes`.',
    ].join('\n'),
  });

/** Names whose every value counts; for any other name the first value wins. */
export const REPEATABLE_QUERY_PARAMETERS: ReadonlySet<string> = new Set(['eventType']);

/** Every query parameter of the API, by name: one schema per name, whichever endpoint takes it. */
export const queryParameters = {
  eventType,
  minDate: dateTime(
    [
      'Only events created at or after this instant (inclusive). ISO 8601 date-time with `Z` or a',
      'UTC offset (seconds and fraction optional), or a date `YYYY-MM-DD` meaning midnight UTC.',
      'Anything else is a 400 INVALID_QUERY_PARAMETER.',
    ].join('\n'),
  ),
  maxDate: dateTime(
    [
      'Only events created at or before this instant (inclusive). Same forms as minDate; a plain',
      'date means midnight UTC at the start of that day.',
    ].join('\n'),
  ),
  pageNum: integer({
    min: 1,
    defaultValue: 1,
    description: '1-based page number. A page beyond any possible offset is a 400.',
  }),
  itemsPerPage: integer({
    min: 1,
    max: MAX_ITEMS_PER_PAGE,
    defaultValue: DEFAULT_ITEMS_PER_PAGE,
    description: `Items per page, 1 to ${MAX_ITEMS_PER_PAGE} (else 400 INVALID_QUERY_PARAMETER).`,
  }),
  includeCount: flag(
    true,
    'Whether totalCount is computed. With `false` the response still carries `"totalCount": 0`, as the real service does.',
  ),
  includeRaw: flag(false, "Include each event's `raw` document. `true`/`false`, any letter case."),
  pretty: flag(false, 'Indent the response body (same content).'),
  envelope: flag(
    false,
    'Wrap the response: single objects become `{status, content}`, lists gain `status`. For clients that cannot read the HTTP status; the HTTP status itself is unchanged.',
  ),
};

export type QueryParameterName = keyof typeof queryParameters;

/** The page's first row must be an offset a store can address exactly. */
function pageWithinReach(
  value: { pageNum: number; itemsPerPage: number },
  payload: z.core.ParsePayload,
): void {
  if ((value.pageNum - 1) * value.itemsPerPage > Number.MAX_SAFE_INTEGER) {
    payload.issues.push({
      code: 'custom',
      message: 'page is beyond any possible result',
      path: ['pageNum'],
      input: value.pageNum,
    });
  }
}

const { pageNum, itemsPerPage, includeCount, includeRaw, minDate, maxDate, pretty, envelope } =
  queryParameters;

// Key order is the order the checks report in: the first bad parameter is the one named.

/** Every response honours these. */
export const formatParameters = z.object({ pretty, envelope });

/** The paginated lists (`/orgs`; the events list adds its filters). */
export const pagingParameters = z
  .object({ itemsPerPage, pageNum, includeCount })
  .check((payload) => pageWithinReach(payload.value, payload));

/** GET /orgs/{orgId}/events. Whether each event type exists is the handler's check: it needs the store. */
export const listEventsParameters = z
  .object({ eventType, itemsPerPage, pageNum, includeCount, includeRaw, minDate, maxDate })
  .check((payload) => pageWithinReach(payload.value, payload));

/** GET /orgs/{orgId}/events/{eventId}. */
export const getEventParameters = z.object({ includeRaw });
