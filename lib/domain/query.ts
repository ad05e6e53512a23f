import * as z from 'zod';
import { DATE_TIME_FORMS, isKnownZone, parseDateTime, toApiDateTime } from './dates';
import {
  DEFAULT_FACET_LIMIT,
  DEFAULT_HISTOGRAM_BUCKETS,
  FACET_FIELDS,
  type FacetField,
  FILTER_FIELDS,
  type FilterField,
  HISTOGRAM_INTERVALS,
  MAX_FACET_LIMIT,
  MAX_EVENT_TYPE_VALUES,
  MAX_FILTER_VALUES,
  MAX_HISTOGRAM_BUCKETS,
  isMalformedCidr,
  exclusionsIn,
  words,
} from './filters';
import { DEFAULT_ITEMS_PER_PAGE, EVENT_TYPE_PATTERN, MAX_ITEMS_PER_PAGE } from './limits';
import { splitValueList } from './value-list';

/** What GET /orgs/{orgId}/events/export writes. */
export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

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
const DECIMAL_DIGITS = /^\d+$/;

/** Why a page number past every offset a store can address is refused. */
const PAGE_OUT_OF_REACH = 'page is beyond any possible result';

function integer(options: {
  min: number;
  max?: number;
  defaultValue: number;
  description: string;
  /**
   * The rule quoted for a value above every safe integer, when there is no
   * max: such a number is well-formed, only too large to be exact as a
   * double (9007199254740993 read as ...992), so "must be an integer" would
   * misstate it.
   */
  tooLarge?: string;
}) {
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const rule =
    options.max === undefined
      ? `must be an integer of at least ${options.min}`
      : `must be an integer from ${options.min} to ${options.max}`;
  const tooLarge = options.max === undefined ? options.tooLarge : undefined;
  return z
    .codec(
      z.string().regex(DECIMAL_DIGITS, { error: rule }),
      z.int({ error: rule }).min(options.min, { error: rule }).max(max, { error: rule }),
      {
        decode: (text, payload) => {
          const value = Number(text);
          if (tooLarge === undefined || Number.isSafeInteger(value)) return value;
          payload.issues.push({ code: 'custom', message: tooLarge, input: text });
          return z.NEVER;
        },
        encode: String,
      },
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
 * A list of event types: every value of the repeated name, each possibly a
 * comma list. Items are trimmed and duplicates removed (first kept), so the
 * handler sees each distinct type once, in the order given. An empty item
 * (`eventType=`, `eventType=A,`) is a 400, as for the field filters: read as
 * "no filter" it silently widened the answer to every type. So is more than
 * MAX_EVENT_TYPE_VALUES types.
 */
function eventTypeList(description: string) {
  return z
    .codec(
      z.array(z.string()),
      z.array(
        z.string().regex(EVENT_TYPE_PATTERN, {
          error: 'must be an event type name in upper snake case, e.g. API_KEY_CREATED',
        }),
      ),
      {
        decode: (values, payload) => {
          const types = new Set<string>();
          for (const value of values) {
            for (const type of splitValueList(value)) {
              const problem =
                type === ''
                  ? 'must not be empty'
                  : types.size >= MAX_EVENT_TYPE_VALUES && !types.has(type)
                    ? `must have at most ${MAX_EVENT_TYPE_VALUES} values`
                    : null;
              if (problem !== null) {
                payload.issues.push({ code: 'custom', message: problem, input: value });
                return z.NEVER;
              }
              types.add(type);
            }
          }
          return [...types];
        },
        encode: (types) => types,
      },
    )
    .default([])
    .meta({ description });
}

const eventType = eventTypeList(
  [
    'Only events of these types; none means every type. Repeat the parameter',
    '(`eventType=A&eventType=B`) or separate values with commas (`eventType=A,B`). Each value',
    "must be upper snake case (else 400 INVALID_QUERY_PARAMETER) and name a type of this variant's",
    "catalogue or one present in the org's events (else 400 INVALID_ENUM_VALUE). See",
    `\`/orgs/{orgId}/eventTypes\`. An empty value or more than ${MAX_EVENT_TYPE_VALUES} types is a 400`,
    'INVALID_QUERY_PARAMETER.',
  ].join('\n'),
);

const excludeEventType = eventTypeList(
  [
    'Leave out events of these types (repeatable or a comma list, upper snake case). Unknown',
    `types exclude nothing. Applies after eventType. At most ${MAX_EVENT_TYPE_VALUES} types; an empty value is`,
    'a 400 INVALID_QUERY_PARAMETER.',
  ].join('\n'),
);

/**
 * A filter's values: every value of the repeated name, each possibly a comma
 * list (`\,` a literal comma, `\\` a backslash: value-list.ts),
 * trimmed, duplicates removed. An empty item or more than MAX_FILTER_VALUES
 * values is a 400; `check` refuses malformed items.
 */
function valueList(description: string, check?: (item: string) => string | null) {
  return z
    .codec(z.array(z.string()), z.array(z.string()), {
      decode: (values, payload) => {
        const items = new Set<string>();
        for (const value of values) {
          for (const item of splitValueList(value)) {
            const problem =
              item === ''
                ? 'must not be empty'
                : items.size >= MAX_FILTER_VALUES
                  ? `must have at most ${MAX_FILTER_VALUES} values`
                  : (check?.(item) ?? null);
            if (problem !== null) {
              payload.issues.push({ code: 'custom', message: problem, input: value });
              return z.NEVER;
            }
            items.add(item);
          }
        }
        return [...items];
      },
      encode: (items) => items,
    })
    .optional()
    .meta({ description });
}

/** How a value holds a comma: the rule of value-list.ts, in every filter's description. */
const VALUE_ESCAPES = [
  'In a value, `\\,` is a literal comma and `\\\\` a literal backslash (`collection=orders\\,2024`,',
  '`username=CN=Alice\\,OU=Eng`); any other backslash is literal (`DOMAIN\\user`). Spaces around',
  'each value are dropped.',
].join('\n');

function fieldFilter(field: FilterField) {
  const remote = field === 'remoteAddress';
  return valueList(
    [
      `Only events whose \`${field}\` equals one of these values (exact, case-sensitive).`,
      remote
        ? 'A value with a slash is a CIDR block (`10.0.0.0/8`, `2001:db8::/32`); a malformed one is a 400.'
        : '',
      `Repeat the parameter or give a comma list (any of them); at most ${MAX_FILTER_VALUES} values;`,
      'an empty value is a 400 INVALID_QUERY_PARAMETER. Unknown values match nothing.',
      VALUE_ESCAPES,
    ]
      .filter(Boolean)
      .join('\n'),
    remote
      ? (item) =>
          isMalformedCidr(item)
            ? 'must be an address or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32'
            : null
      : undefined,
  );
}

const fieldFilters = Object.fromEntries(FILTER_FIELDS.map((f) => [f, fieldFilter(f)])) as {
  [F in FilterField]: ReturnType<typeof fieldFilter>;
};

const actor = valueList(
  [
    "Only events whose actor is one of these: the event's `username`, `userId`, `publicKey` or",
    '`apiKeyId` equals the value. Repeatable or a comma list.',
    VALUE_ESCAPES,
  ].join('\n'),
);

/** Free text: the words of every value; each must match (as a word or a word prefix). */
const q = z
  .codec(z.array(z.string()), z.array(z.string()), {
    decode: (values, payload) => {
      const exclusions = values.flatMap(exclusionsIn);
      if (exclusions.length > 0) {
        payload.issues.push({
          code: 'custom',
          message: `cannot leave out ${exclusions[0]}: free text only narrows (event types are left out with excludeEventType)`,
          input: values.join(' '),
        });
        return z.NEVER;
      }
      const found = new Set<string>();
      for (const value of values) for (const word of words(value)) found.add(word);
      if (found.size === 0 || found.size > MAX_FILTER_VALUES) {
        payload.issues.push({
          code: 'custom',
          message: `must hold 1 to ${MAX_FILTER_VALUES} words`,
          input: values.join(' '),
        });
        return z.NEVER;
      }
      return [...found];
    },
    encode: (items) => items,
  })
  .optional()
  .meta({
    description: [
      'Free text. Split into words (letters and digits); every word must match, case-insensitively,',
      "the start of a word of the event's type name or label or of any string field filterable by",
      'name (so `ali` finds alice@example.com and `clu del` CLUSTER_DELETED). A part written with a',
      'leading dash (`-bob`) is refused: free text has no exclusion.',
    ].join('\n'),
  });

/** Facet fields: every value, each possibly a comma list; default all of them. */
const field = z
  .codec(
    z.array(z.string()),
    z.array(z.enum(FACET_FIELDS, { error: `must be one of ${FACET_FIELDS.join(', ')}` })),
    {
      // The output schema checks each name; the cast only hands them over.
      decode: (values) =>
        [
          ...new Set(values.flatMap((v) => v.split(',').map((item) => item.trim()))),
        ] as FacetField[],
      encode: (items) => items,
    },
  )
  .default([...FACET_FIELDS])
  .meta({
    description: `Fields to count (repeatable or a comma list): ${FACET_FIELDS.join(', ')}. Default: all.`,
  });

/** Names whose every value counts; for any other name the first value wins. */
export const REPEATABLE_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'eventType',
  'excludeEventType',
  ...FILTER_FIELDS,
  'actor',
  'q',
  'field',
]);

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
    tooLarge: PAGE_OUT_OF_REACH,
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
  excludeEventType,
  ...fieldFilters,
  actor,
  q,
  field,
  limit: integer({
    min: 1,
    max: MAX_FACET_LIMIT,
    defaultValue: DEFAULT_FACET_LIMIT,
    description: `Values per facet field, most frequent first, 1 to ${MAX_FACET_LIMIT}.`,
  }),
  buckets: integer({
    min: 1,
    max: MAX_HISTOGRAM_BUCKETS,
    defaultValue: DEFAULT_HISTOGRAM_BUCKETS,
    description: [
      `At most this many buckets, 1 to ${MAX_HISTOGRAM_BUCKETS}: the smallest interval of`,
      `${HISTOGRAM_INTERVALS.join(', ')} that covers the range in that many (century when none does).`,
    ].join('\n'),
  }),
  interval: z
    .enum(HISTOGRAM_INTERVALS, { error: `must be one of ${HISTOGRAM_INTERVALS.join(', ')}` })
    .optional()
    .meta({
      description: `The bucket width instead of \`buckets\`; at most ${MAX_HISTOGRAM_BUCKETS} buckets must cover the range.`,
    }),
  timeZone: z
    .string()
    .refine(isKnownZone, { error: 'must be an IANA time zone name, such as America/New_York' })
    .optional()
    .meta({
      description: [
        "An IANA time zone (America/New_York) whose clock starts the buckets instead of UTC's: its midnights",
        'start day, week (Monday), month and longer buckets (a day of 23 or 25 hours where the clocks change),',
        "its :00 hours and minutes (Asia/Kolkata's hours start at UTC's :30), and a change of its clocks starts one.",
      ].join('\n'),
    }),
  format: z
    .enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` })
    .default('ndjson')
    .meta({
      description:
        "The export's format: `ndjson` (one event per line, as the list returns it) or `csv` (RFC 4180, a header row, one column per field).",
    }),
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
      message: PAGE_OUT_OF_REACH,
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

/** The filters of issue 9, beyond type and date: every events endpoint takes them. */
const extraFilters = { excludeEventType, ...fieldFilters, actor, q };

/** Type, date and field filters: the set the list, facets, histogram and eventTypes describe. */
export const filterParameters = z.object({ eventType, minDate, maxDate, ...extraFilters });

/** GET /orgs/{orgId}/events. Whether each event type exists is the handler's check: it needs the store. */
export const listEventsParameters = z
  .object({
    eventType,
    itemsPerPage,
    pageNum,
    includeCount,
    includeRaw,
    minDate,
    maxDate,
    ...extraFilters,
  })
  .check((payload) => pageWithinReach(payload.value, payload));

/** GET /orgs/{orgId}/events/facets. */
export const facetsParameters = z.object({
  ...filterParameters.shape,
  field,
  limit: queryParameters.limit,
});

/** GET /orgs/{orgId}/events/histogram. */
export const histogramParameters = z.object({
  ...filterParameters.shape,
  buckets: queryParameters.buckets,
  interval: queryParameters.interval,
  timeZone: queryParameters.timeZone,
});

/** GET /orgs/{orgId}/events/export: the list's filters, the whole set. */
export const exportEventsParameters = z.object({
  ...filterParameters.shape,
  format: queryParameters.format,
  includeRaw,
});

/** GET /orgs/{orgId}/events/{eventId}. */
export const getEventParameters = z.object({ includeRaw });
