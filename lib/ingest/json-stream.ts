/**
 * Streaming splitters for the three import formats. Neither holds more than
 * one record's text in memory, so files far larger than memory import fine.
 *
 * - `LineSplitter`: NDJSON, one record per line, with line numbers.
 * - `JsonArraySplitter`: the elements of one array inside a JSON document —
 *   the document itself (`[...]`), its `results` (the list envelope the API
 *   returns) or `content.results` (the `envelope=true` form) — each as text
 *   with its index and starting line. Inside an element it tracks only
 *   strings and brackets; each element is then parsed with JSON.parse, so a
 *   malformed element is one bad record, while broken structure around the
 *   elements (truncation, unbalanced brackets, a comma or colon missing,
 *   doubled or misplaced) is a fatal error.
 */
import * as jsonText from '@/lib/domain/json-text';

// Module-level copies, read once: under tsx (how the CLI's bulk loads run)
// every use of an imported binding is a getter call on the exporting module,
// which in per-character scans like this one cost a quarter of an envelope
// import's parsing thread.
const {
  BYTE_ORDER_MARK,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  skipSpace,
  stringEnd,
  trailingBackslashes,
  valueEnd,
} = jsonText;

export class JsonStructureError extends Error {
  constructor(
    message: string,
    readonly line: number,
    /**
     * The character's place on its line (from 1), where one character is
     * wrong: a file on one line (what `curl` saves) has all on line 1.
     */
    readonly column?: number,
  ) {
    super(`${message} (line ${line}${column === undefined ? '' : `, column ${column}`})`);
    this.name = 'JsonStructureError';
  }
}

/**
 * A comma or colon missing, doubled or misplaced between the values the
 * splitter reads itself (the records array's elements, the envelope's
 * members): `[{…},]`, `[{…},,{…}]`, `[{…} {…}]`. The brackets may still
 * balance. Such a file imported as if the commas were there (an empty
 * element dropped without a word), though no JSON reader takes it. Named
 * by line and column: a missing comma is hard to see on a long line.
 */
export class JsonPunctuationError extends JsonStructureError {
  constructor(message: string, line: number, column: number) {
    super(message, line, column);
    this.name = 'JsonPunctuationError';
  }
}

/**
 * A bare value the splitter reads (a records array's bare element, an
 * envelope's member) that is no JSON literal or number, with more after it:
 * `[tru e]` was said to miss a comma before the `e`. A punctuation error
 * too, so whatever refuses a one-line envelope for a misplaced character
 * refuses it for this.
 */
export class JsonTokenError extends JsonPunctuationError {
  constructor(message: string, line: number, column: number) {
    super(message, line, column);
    this.name = 'JsonTokenError';
  }
}

/** A bare value's text shown in a message: a long run of letters is cut. */
const TOKEN_SHOWN = 40;

/**
 * What is wrong with `text`, a bare value as written (no string, no
 * brackets), or undefined when it is a JSON literal or number.
 */
export function invalidToken(text: string): string | undefined {
  if (text === 'true' || text === 'false' || text === 'null') return undefined;
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text)) return undefined;
  const shown = text.length > TOKEN_SHOWN ? `${text.slice(0, TOKEN_SHOWN)}…` : text;
  if (!/^[-+.\d]/.test(text)) {
    return `Invalid literal '${shown}' (JSON's literals are true, false and null; a string needs quotes)`;
  }
  const number = `Invalid number '${shown}'`;
  if (text.startsWith('+')) return `${number}: JSON numbers take no plus sign`;
  if (/^-(?!\d)/.test(text)) return `${number}: no digit after the minus sign`;
  if (text.startsWith('.') || text.startsWith('-.')) {
    return `${number}: no digit before the decimal point`;
  }
  if (/^-?0\d/.test(text)) return `${number}: a number cannot start with 0 followed by a digit`;
  if (/^-?\d+\.(?!\d)/.test(text)) return `${number}: no digit after the decimal point`;
  if (/^-?\d+(?:\.\d+)?[eE][+-]?(?!\d)/.test(text)) return `${number}: no digit in the exponent`;
  return number;
}

/**
 * The records array's key (or `content` above it) appears twice in one
 * object. JSON.parse keeps the last, this splitter finds the first: which
 * list is meant is unclear, and pairing one's texts with the other's
 * records stored one event's text under another's id.
 */
export class RepeatedListKeyError extends JsonStructureError {
  constructor(
    readonly key: string,
    line: number,
    /** What is wrong, without the line (an NDJSON record's report names its line apart). */
    readonly reason = repeatedListKey(key),
  ) {
    super(reason, line);
    this.name = 'RepeatedListKeyError';
  }
}

export function repeatedListKey(key: string): string {
  return `"${key}" appears twice in one object: which list of records is meant is unclear`;
}

/**
 * An envelope holding both a `results` list and a `content.results` one.
 * This splitter took the first it met, JSON.parse readers (innerRecords,
 * the mirror's parseListing) took `results`: where they differed, records
 * were stored without their own text, re-serialized (9007199254740993 read
 * as ...992), or dropped. Refused like a repeated key: neither is more
 * clearly the list meant.
 */
export class TwoListsError extends RepeatedListKeyError {
  constructor(line: number) {
    super('results', line, TWO_LISTS);
    this.name = 'TwoListsError';
  }
}

export const TWO_LISTS =
  'the object holds both a "results" list and a "content.results" list: which list of records is meant is unclear';

/**
 * Where the records of a parsed page are, by the rule this splitter
 * follows: the array itself, else its `results`, else its
 * `content.results`; undefined for an event (an `id` or `eventTypeName` at
 * its root) and for anything else. A page holding both lists is refused by
 * the splitter (TwoListsError), so the two never pick different lists.
 */
export function recordsPath(value: unknown): '' | 'results' | 'content.results' | undefined {
  if (Array.isArray(value)) return '';
  if (value === null || typeof value !== 'object') return undefined;
  if (EVENT_KEYS.some((key) => key in value)) return undefined;
  const object = value as { results?: unknown; content?: { results?: unknown } };
  if (Array.isArray(object.results)) return 'results';
  if (isEvent(object.content)) return undefined;
  if (Array.isArray(object.content?.results)) return 'content.results';
  return undefined;
}

/** Whether a parsed value is an object with an event's `id` or `eventTypeName`. */
function isEvent(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    EVENT_KEYS.some((key) => key in value)
  );
}

/**
 * The event an `envelope=true` answer of the get endpoint holds
 * (`{"status": 200, "content": {…}}`): the root's `content` when it has an
 * `id` or `eventTypeName` and the root has neither, nor a `results` list
 * (recordsPath's rule: that list is the page's). Undefined for anything else.
 */
export function eventInContent(value: unknown): object | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  if (isEvent(value) || recordsPath(value) !== undefined) return undefined;
  const content = (value as { content?: unknown }).content;
  return isEvent(content) ? (content as object) : undefined;
}

/**
 * A JSON document of a sequence that is no list of events: one event (an
 * `id` or `eventTypeName` at its root), or no records array at all.
 */
export class NotAListError extends Error {
  constructor(
    /** `apiError`: no records array, but the API's error answer's "error" and "errorCode". */
    readonly reason: 'oneEvent' | 'noRecords' | 'apiError',
    /** The line the document starts on, and its place in the file (1 for the first). */
    readonly line: number,
    readonly document: number,
    /** The keys of the document's root object, in order (at most MAX_ROOT_KEYS), and how many it has in all. */
    readonly rootKeys: readonly string[] = [],
    readonly rootKeyCount = rootKeys.length,
    /** Its `results` (or `content.results`) when that is no array, and what it is instead ('a number'). */
    readonly listValue?: ListValue,
  ) {
    super(
      reason === 'oneEvent'
        ? 'The JSON document is one event'
        : 'The JSON document has no records array',
    );
    this.name = 'NotAListError';
  }
}

/** Where a records list was looked for and found no array, and what was there ('a number', 'null'). */
export type ListValue = { path: 'results' | 'content.results'; is: string };

/**
 * What a list envelope's own members say (the API writes "totalCount", a
 * number, and "links", an array): the listing's count, or that it is no
 * page as the API writes it.
 */
export type PageMembers = {
  /** "totalCount", a number: the events of the whole listing, of which the page holds some (0: not counted). */
  totalCount?: number;
  /** The first of "totalCount" and "links" that is not what the API writes there, and what it is instead. */
  notApi?: { key: 'totalCount' | 'links'; is: string };
};

/** A list envelope read: the line it starts on, its records (valid or not) and its own members. */
export type Page = PageMembers & { line: number; records: number };

/** What the splitter read of an envelope's "totalCount" (its kind, a number's text) and "links" (its kind). */
type PageNotes = { countIs?: string; countText: string; linksIs?: string };

function pageMembersOf(
  count: { is: string; value: number } | undefined,
  linksIs: string | undefined,
): PageMembers {
  if (count !== undefined && count.is !== 'a number') {
    return { notApi: { key: 'totalCount', is: count.is } };
  }
  if (linksIs !== undefined && linksIs !== 'an array')
    return { notApi: { key: 'links', is: linksIs } };
  return count === undefined ? {} : { totalCount: count.value };
}

/** What a JSON value starting with `c` is ('a string', 'null'…), as a refusal or warning says it. */
function valueKind(c: number): string {
  return c === QUOTE
    ? 'a string'
    : c === OPEN_OBJECT
      ? 'an object'
      : c === OPEN_ARRAY
        ? 'an array'
        : c === 116 || c === 102 // t, f
          ? 'a boolean'
          : c === 110 // n
            ? 'null'
            : 'a number';
}

/** What a parsed JSON value is, in valueKind's words. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
}

/**
 * The own members of a parsed page whose records are at `path`
 * (recordsPath's): by the splitter's rule, for a page read whole (an NDJSON
 * line) as for one streamed.
 */
export function pageMembers(value: unknown, path: string): PageMembers {
  if (path !== 'results' && path !== 'content.results') return {};
  const owner = (path === 'results' ? value : (value as { content: unknown }).content) as Record<
    string,
    unknown
  >;
  const count = 'totalCount' in owner ? owner.totalCount : undefined;
  return pageMembersOf(
    'totalCount' in owner ? { is: kindOf(count), value: count as number } : undefined,
    'links' in owner ? kindOf(owner.links) : undefined,
  );
}

export type LineRecord = {
  text: string;
  line: number;
  /**
   * Where the line starts and ends (past its line break, if it has one), in
   * characters of the text pushed: where an import stopped after it stands.
   */
  start: number;
  end: number;
  /** Set instead of `text` (which is then empty) when the line is longer than the limit: its length so far. */
  oversize?: number;
};

/** Carriage return: the CR of a CRLF line ending. */
const CR = 13;

/**
 * Splits text chunks into lines (LF or CRLF), numbering from 1. A line
 * longer than `maxChars` is not held: it is skipped up to its end and
 * given with `oversize` set, so one huge line cannot exhaust memory.
 *
 * Synchronous, a chunk at a time: the caller iterates the chunks (async)
 * and each chunk's lines in a plain loop. An async generator yielding line
 * by line cost a promise and a microtask turn per line, a fifth of an
 * import's parsing thread.
 */
export class LineSplitter {
  private pending = '';
  private line = 0;
  /** Characters of the current line already dropped (it is too long), or -1. */
  private skipped = -1;
  /** The last character of the chunks so far (0 before the first): a line's CR may end one chunk and its LF begin the next. */
  private lastChar = 0;
  /** The characters pushed before the current chunk, and where the current line starts. */
  private base = 0;
  private lineStart = 0;

  constructor(private readonly maxChars = Infinity) {}

  /**
   * The lines a chunk completes. The chunk is searched alone, never joined
   * to the held start of a line first: indexOf on `held + chunk` flattened
   * that pair into a new copy of the whole chunk (a megabyte a read), a
   * third of the page faults of an import's reading thread.
   *
   * A line's length, measured against the limit, leaves out the CR of a CRLF
   * ending, as its text does: a record of exactly the limit is not too long
   * in a file with Windows line endings.
   */
  push(chunk: string): LineRecord[] {
    const records: LineRecord[] = [];
    let start = 0;
    // The first line's start, held from earlier chunks.
    let held = this.pending;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      this.line++;
      const before = end > 0 ? chunk.charCodeAt(end - 1) : this.lastChar;
      const length = held.length + end - start - (before === CR ? 1 : 0);
      // Numbers in the record itself, as its line: no object more a line.
      const { line, lineStart } = this;
      const after = this.base + end + 1;
      if (this.skipped !== -1) {
        records.push({
          text: '',
          line,
          start: lineStart,
          end: after,
          oversize: this.skipped + length,
        });
        this.skipped = -1;
      } else if (length > this.maxChars) {
        records.push({ text: '', line, start: lineStart, end: after, oversize: length });
      } else {
        const text = chunk.slice(start, end);
        records.push({
          text: stripCr(held.length === 0 ? text : held + text),
          line,
          start: lineStart,
          end: after,
        });
      }
      this.lineStart = after;
      held = '';
      start = end + 1;
    }
    this.base += chunk.length;
    if (chunk.length > 0) this.lastChar = chunk.charCodeAt(chunk.length - 1);
    this.pending = held + chunk.slice(start);
    // A CR the line ends on may be the LF's (its length is then one less).
    if (this.pending.length - (this.lastChar === CR ? 1 : 0) > this.maxChars) {
      this.skipped = (this.skipped === -1 ? 0 : this.skipped) + this.pending.length;
      this.pending = '';
    }
    return records;
  }

  /** The last line, when the text does not end with a newline. */
  end(): LineRecord | undefined {
    const at = { line: this.line + 1, start: this.lineStart, end: this.base };
    if (this.skipped !== -1) {
      const cr = this.lastChar === CR ? 1 : 0;
      return { text: '', ...at, oversize: this.skipped + this.pending.length - cr };
    }
    if (this.pending.length > 0) return { text: stripCr(this.pending), ...at };
    return undefined;
  }
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

export type ArrayElement = {
  text: string;
  index: number;
  /** The path of the records array it is in ('', 'results' or 'content.results'): documents in a row may differ. */
  path: string;
  line: number;
  /**
   * The offset (in characters of the text pushed) just past the element's
   * last character: where an import stopped after it stands in the file.
   */
  end: number;
  /** Set instead of `text` (then empty) when the element is longer than the limit. */
  oversize?: number;
  /** The element is a whole document of a sequence that is one event (index 0, path ''), not in an array. */
  document?: true;
};

const NEWLINE = 10;

/**
 * What a frame has just read, so what may come next (a JSON grammar's
 * states, kept for the frames the splitter scans itself: an element's
 * inside is JSON.parse's to judge).
 */
const OPENED = 0;
const AFTER_COMMA = 1;
const AFTER_KEY = 2;
const AFTER_COLON = 3;
const AFTER_VALUE = 4;

type Frame = { kind: 'object' | 'array'; key: string | null; state: number };

/** Whether a value may start next in `frame`: an array's element, an object's member's value. */
function expectsValue(frame: Frame): boolean {
  return frame.kind === 'array' ? frame.state <= AFTER_COMMA : frame.state === AFTER_COLON;
}

/** Why `c`, at `line` and `column`, cannot come next in `frame` (its state says what could). */
function misplaced(frame: Frame, c: number, line: number, column: number): JsonPunctuationError {
  const found = `found '${String.fromCharCode(c)}'`;
  const array = frame.kind === 'array';
  const close = c === CLOSE_ARRAY || c === CLOSE_OBJECT;
  let message: string;
  if (frame.state === AFTER_VALUE) {
    message = array
      ? `Expected ',' or ']' after an element, ${found} (a missing comma)`
      : `Expected ',' or '}' after a member, ${found} (a missing comma)`;
  } else if (frame.state === AFTER_KEY) {
    message = `Expected ':' after a member's key, ${found}`;
  } else if (close && frame.state === AFTER_COMMA) {
    message = array
      ? `Expected a value after ',', ${found} (a trailing comma)`
      : `Expected a member's key after ',', ${found} (a trailing comma)`;
  } else if (!array && frame.state !== AFTER_COLON) {
    message = `Expected a member's key, ${found}`;
  } else if (c === COMMA && array) {
    message = `Expected a value, ${found} (two commas in a row, or one after '[')`;
  } else if (c === COLON && array) {
    message = `Unexpected ${found}`;
  } else {
    message = `Expected a value, ${found}`;
  }
  return new JsonPunctuationError(message, line, column);
}

/** Key paths whose array holds the records. */
const TARGET_PATHS = ['', 'results', 'content.results'];
/** Keys that make an object an event, not a list envelope (as innerRecords decides for a parsed line). */
const EVENT_KEYS = ['id', 'eventTypeName'];

/** How many of a root object's keys are kept to name what a document that is no list holds. */
export const MAX_ROOT_KEYS = 8;

/** The keys of the API's error answer (ApiError's required ones), one bit each. */
const ERROR_KEYS: Record<string, number> = { error: 1, errorCode: 2 };
const BOTH_ERROR_KEYS = 3;

export class JsonArraySplitter {
  /**
   * The chunk being scanned. Scanning always resumes at a chunk's start;
   * an element or key begun in earlier chunks is `held` and joined to its
   * end only when it is cut out (textFrom). Not `held + chunk` scanned whole:
   * scanning that pair flattened it into a copy of the whole chunk, a
   * megabyte for every megabyte read.
   */
  private chunk = '';
  /** Absolute offset of chunk[0] in the document. */
  private base = 0;
  /** The start of the open element or key, from earlier chunks, and its absolute offset. */
  private held = '';
  private heldBase = 0;
  private line = 1;
  /** The absolute offset the current line starts at (a column's origin). */
  private lineStart = 0;
  private readonly stack: Frame[] = [];
  private inString = false;
  private escaped = false;
  /** The key being read, when the current string is a key we track. */
  private keyStart = -1;
  private lastKey: string | null = null;
  private targetDepth = -1;
  private targetDone = false;
  private elementStart = -1;
  private elementLine = 0;
  private index = 0;
  private rootClosed = false;
  /** Set when the element being read outgrew the limit: its text is no longer kept. */
  private elementOversize = false;
  /** The offset just past the last character of a bare value (number, true…) outside the records: one more there continues it. */
  private scalarNext = -1;
  /**
   * The last bare value begun (a literal or number), only ever read when
   * something misplaced follows one (tokenError): its start (-1 once a value
   * of another kind followed it outside the records), place and text.
   */
  private tokenStart = -1;
  private tokenLine = 0;
  private tokenColumn = 0;
  private tokenText = '';

  /** The document being read (1 for the first) and the line it starts on. */
  private document = 1;
  private documentLine = 1;
  /**
   * Where the root object began (sequence only), while it may prove one
   * event: held so it is given whole. -1 once its records were given as a
   * list (heldRecords) or it outgrew the limit (rootOversize).
   */
  private rootStart = -1;
  private rootOversize = false;
  /** Where the root object began (any mode): records are held while it is within the limit. */
  private rootOpen = -1;
  /**
   * The root's `content` object (sequence only), while it may prove one
   * event (`{"status": 200, "content": {…}}`, an `envelope=true` answer of
   * the get endpoint): its start, the line it starts on, and once it closed
   * as one event, that event.
   */
  private contentStart = -1;
  private contentOversize = false;
  private contentLine = 0;
  private contentEvent: ArrayElement | undefined;
  /**
   * The records of a `results` (or `content.results`) list read while the
   * object holding it may still prove one event, its `id` or
   * `eventTypeName` yet to come (an event's own field named results, keys
   * not sorted): given once the root closes as no event, or outgrows the
   * limit (no event that long is read whole); dropped once it proves one.
   * Given at once, they were imported as events, then the event refused.
   * null while none are held.
   */
  private heldRecords: ArrayElement[] | null = null;
  /** The document just read was one event, given as a record: no list is due. */
  private eventGiven = false;
  /** The root's (0) and its content's (1) "totalCount" and "links", as read. */
  private pageNotes: [PageNotes, PageNotes] = [{ countText: '' }, { countText: '' }];
  /** The notes whose "totalCount" number is being read, its next characters to add. */
  private counting: PageNotes | null = null;
  /** The list envelopes read whole since takePages last gave them. */
  private pages: Page[] = [];

  /**
   * `maxChars`: elements longer than this are reported with `oversize`, not
   * held in memory. `sequence`: documents may follow one another (API
   * answers appended by `curl >> file`, pretty-printed or not), each a list
   * whose records are given in turn, or each one event (a root object with
   * an `id` or `eventTypeName` before any records array: `curl …/events/ID
   * | jq .`), given whole as one record; without it, content after the
   * first document is broken structure (a mirror's page, one line of
   * NDJSON), and one event is NotAListError.
   */
  constructor(
    private readonly maxChars = Infinity,
    private readonly sequence = false,
  ) {}

  /** Where the records array was found: '', 'results' or 'content.results'. */
  path: string | undefined;

  /**
   * The root object has an `id` or `eventTypeName`: it is one event, whose
   * own `results` or `content.results` (unknown fields are kept) is no list
   * of records. Known once such a key is read: before the records array (as
   * in keys sorted, how the API writes them), it is never taken for one.
   */
  rootIsEvent = false;

  /**
   * The root's `content` object has an `id` or `eventTypeName`: an
   * `envelope=true` answer holding one event, whose own `results` is no
   * list of records (as rootIsEvent for the root).
   */
  contentIsEvent = false;

  /** The root object's keys "error" and "errorCode" read: the API's error answer (ApiError) has both. */
  private rootErrorKeys = 0;
  /** The same of the root's `content`: the error answer with envelope=true (`{"status": 404, "content": {…}}`). */
  private contentErrorKeys = 0;

  /** The document's `results` (or `content.results`) when it is no array: a refusal names it, not "no results". */
  private listValue: ListValue | undefined;

  /** The root object's first keys (MAX_ROOT_KEYS), and its count of keys: what a document that is no list holds. */
  private rootKeys: string[] = [];
  private rootKeyCount = 0;

  /** Whether the text fed so far ends inside a string. */
  get endsInString(): boolean {
    return this.inString;
  }

  /** Whether the records array was found (and is being or was read). */
  get foundTarget(): boolean {
    return this.targetDepth !== -1;
  }

  /** Broken structure met in a chunk already given back: thrown by the next push or end. */
  private failure: Error | undefined;

  /** Whether broken structure was met (push or end then throws it). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Feeds the next chunk; returns the elements it completed. Broken
   * structure (JsonStructureError, NotAListError) is thrown by the next
   * push or end, so the whole elements before it in the chunk are given
   * first: a reader keeps what a file held before its break.
   */
  push(chunk: string): ArrayElement[] {
    if (this.failure) throw this.failure;
    const out: ArrayElement[] = [];
    try {
      this.scan(chunk, out);
    } catch (error) {
      if (!(error instanceof JsonStructureError || error instanceof NotAListError)) throw error;
      this.failure = error;
    }
    return out;
  }

  private scan(chunk: string, out: ArrayElement[]): void {
    // Hold the unfinished element (or key) text, unless it already outgrew
    // the limit (see the end of this method); drop everything before it.
    const keep = Math.min(
      this.elementStart === -1 || this.elementOversize ? Infinity : this.elementStart,
      this.keyStart === -1 ? Infinity : this.keyStart,
      this.rootStart === -1 || this.rootOversize ? Infinity : this.rootStart,
      this.contentStart === -1 || this.contentOversize ? Infinity : this.contentStart,
    );
    const next = this.base + this.chunk.length;
    if (keep === Infinity) {
      this.held = '';
    } else if (keep >= this.base) {
      this.held = this.chunk.slice(keep - this.base);
      this.heldBase = keep;
    } else {
      this.held = this.held.slice(keep - this.heldBase) + this.chunk;
      this.heldBase = keep;
    }
    this.base = next;
    this.chunk = chunk;
    const text = chunk;
    let i = 0;
    const length = text.length;
    while (i < length) {
      if (!this.inString && this.insideElement()) {
        // Inside a record only strings, brackets and newlines matter: skip
        // to its closing bracket (or the chunk's end) in a tight loop.
        i = this.skipInsideElement(text, i, length);
        if (i >= length) break;
      }
      if (this.inString) {
        i = this.stringRest(text, i, length);
        if (this.inString) break; // the chunk ended inside the string
        if (this.keyStart !== -1) {
          this.lastKey = parseKey(this.textFrom(this.keyStart, i), this.line);
          this.keyStart = -1;
          if (EVENT_KEYS.includes(this.lastKey)) this.eventKeyRead();
          if (this.stack.length === 1) {
            this.rootErrorKeys |= ERROR_KEYS[this.lastKey] ?? 0;
            if (this.rootKeyCount++ < MAX_ROOT_KEYS) this.rootKeys.push(this.lastKey);
          } else if (this.inRootContent()) {
            this.contentErrorKeys |= ERROR_KEYS[this.lastKey] ?? 0;
          }
          if (this.repeatsTargetPath(this.lastKey)) {
            throw new RepeatedListKeyError(this.lastKey, this.line);
          }
        }
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === NEWLINE) {
        this.line++;
        this.lineStart = this.base + i + 1;
        i++;
        continue;
      }
      if (c === 32 || c === 9 || c === 13) {
        i++;
        continue;
      }
      if (c === BYTE_ORDER_MARK && this.rootClosed && this.sequence) {
        // The next document's file was saved with a byte order mark and
        // joined to this one (`cat a.json b.json`): no part of either
        // document, as the first file's is not (dropped as it is read).
        i++;
        continue;
      }
      if (this.rootClosed) {
        if (!this.sequence || (c !== OPEN_OBJECT && c !== OPEN_ARRAY)) {
          throw new JsonStructureError(
            'Unexpected content after the end of the JSON document',
            this.line,
          );
        }
        this.nextDocument();
      }
      const depth = this.stack.length;
      const top = this.stack[depth - 1];
      const inTarget = depth === this.targetDepth && !this.targetDone;
      if (inTarget && c !== COMMA && c !== CLOSE_ARRAY) {
        if (this.elementStart === -1) {
          // A '}' here is of the wrong kind, said as such below.
          if (top!.state === AFTER_VALUE && c !== CLOSE_OBJECT) {
            throw misplaced(top!, c, this.line, this.column(i));
          }
          top!.state = AFTER_VALUE;
          this.elementStart = this.base + i;
          this.elementLine = this.line;
        } else if (this.base + i !== this.scalarNext && c !== CLOSE_OBJECT) {
          // A bare element (a number, a string, true) is open until its
          // comma: another value after it, but for the next character of
          // a number or word, is a comma missing (`[1 2]` was one element,
          // one invalid record, where `[{…} {…}]` was refused), unless the
          // element is no value itself (`[tru e]`).
          throw (
            (this.tokenStart === this.elementStart ? this.tokenError() : undefined) ??
            misplaced(top!, c, this.line, this.column(i))
          );
        }
      }
      switch (c) {
        case QUOTE: {
          this.inString = true;
          // A record's text is cut whole (its start above) and judged by JSON.parse.
          if (top && !inTarget) {
            if (top.kind === 'object' && top.state <= AFTER_COMMA) {
              top.state = AFTER_KEY;
              if (this.tracksKeys(depth)) this.keyStart = this.base + i;
            } else if (expectsValue(top)) {
              top.state = AFTER_VALUE;
              this.tokenStart = -1;
              if (depth <= 2) this.noteValue(c);
            } else {
              throw this.tokenError() ?? misplaced(top, c, this.line, this.column(i));
            }
          }
          i++;
          continue;
        }
        case OPEN_OBJECT:
        case OPEN_ARRAY: {
          const searching = this.targetDepth === -1;
          // Once the records array is found, paths no longer matter (and
          // cost) but at the envelope's own two levels, where the other
          // list would be (TwoListsError).
          const envelope = searching || (depth <= 2 && this.path !== '');
          const key = envelope && top?.kind === 'object' ? this.lastKey : null;
          const path = envelope && c === OPEN_ARRAY ? this.pathWith(key) : null;
          if (depth === 0) {
            this.documentLine = this.line;
            this.rootOpen = this.base + i;
            if (this.sequence && c === OPEN_OBJECT) this.rootStart = this.base + i;
          } else if (depth === 1 && c === OPEN_OBJECT && top!.kind === 'object') {
            if (this.lastKey === 'content') this.openContent(this.base + i);
          }
          if (top && !inTarget) {
            if (!expectsValue(top)) {
              throw this.tokenError() ?? misplaced(top, c, this.line, this.column(i));
            }
            top.state = AFTER_VALUE;
            this.tokenStart = -1;
            if (depth <= 2) this.noteValue(c);
          }
          this.stack.push({ kind: c === OPEN_OBJECT ? 'object' : 'array', key, state: OPENED });
          if (
            path !== null &&
            TARGET_PATHS.includes(path) &&
            !(path !== '' && this.rootIsEvent) &&
            !(path === 'content.results' && this.contentIsEvent)
          ) {
            if (!searching) throw new TwoListsError(this.line);
            this.targetDepth = this.stack.length;
            this.path = path;
            // An array's elements are records at once; an object's list is
            // held while the object may prove one event.
            if (path !== '') this.heldRecords = [];
          }
          i++;
          continue;
        }
        case CLOSE_OBJECT:
        case CLOSE_ARRAY: {
          const expected = c === CLOSE_OBJECT ? 'object' : 'array';
          if (!top || top.kind !== expected) {
            throw new JsonStructureError(`Unexpected '${String.fromCharCode(c)}'`, this.line);
          }
          // A record's own frame (just past its inside, skipped) is still OPENED.
          if (top.state !== OPENED && top.state !== AFTER_VALUE) {
            throw misplaced(top, c, this.line, this.column(i));
          }
          if (inTarget && c === CLOSE_ARRAY) {
            this.finishElement(i, out);
            this.targetDone = true;
          }
          this.stack.pop();
          if (this.stack.length === 1 && this.contentStart !== -1) this.closeContent(i + 1);
          if (this.stack.length === 0) {
            this.rootClosed = true;
            this.closeRoot(i + 1, out);
          }
          i++;
          if (
            this.stack.length === this.targetDepth &&
            !this.targetDone &&
            this.elementStart !== -1
          ) {
            // A nested element just closed: it ends here.
            this.finishElement(i, out);
          }
          continue;
        }
        case COMMA: {
          if (top) {
            if (top.state !== AFTER_VALUE) throw misplaced(top, c, this.line, this.column(i));
            top.state = AFTER_COMMA;
          }
          if (inTarget) this.finishElement(i, out);
          i++;
          continue;
        }
        case COLON: {
          // In a record (a bare value's text) JSON.parse judges it.
          if (top && !inTarget) {
            if (top.kind !== 'object' || top.state !== AFTER_KEY) {
              throw misplaced(top, c, this.line, this.column(i));
            }
            top.state = AFTER_COLON;
          }
          i++;
          continue;
        }
        default:
          if (depth === 0) {
            throw new JsonStructureError('Expected a JSON object or array', this.line);
          }
          // A bare value (number, true, false, null) outside the records:
          // its first character must come where a value may.
          if (!inTarget && this.base + i !== this.scalarNext) {
            if (!expectsValue(top!)) {
              throw this.tokenError() ?? misplaced(top!, c, this.line, this.column(i));
            }
            top!.state = AFTER_VALUE;
            if (depth <= 2) this.noteValue(c);
          } else if (this.counting !== null) {
            // The next character of a "totalCount" (a number's are all bare).
            this.counting.countText += String.fromCharCode(c);
          }
          // Bare values only (never an object record's characters): kept
          // to name one that is no value when something follows it.
          if (this.base + i !== this.scalarNext) {
            this.tokenStart = this.base + i;
            this.tokenLine = this.line;
            this.tokenColumn = this.column(i);
            this.tokenText = '';
          }
          if (this.tokenText.length <= TOKEN_SHOWN) this.tokenText += String.fromCharCode(c);
          this.scalarNext = this.base + i + 1;
          i++;
      }
    }
    // Judged on what the element holds so far, once this chunk is scanned:
    // an element this chunk completes is whole whatever the chunk's size (a
    // check of "so far + the whole new chunk" before scanning wrongly failed
    // the element straddling each edge of 1 MB chunks under a 1 MB limit).
    // An element still open and already too long keeps no text from here
    // on, so memory holds at most the limit and two chunks: the held start
    // points into the whole chunk the element began in (held apart since
    // 2026-11; joined to the new chunk before, it was the limit and one).
    if (
      this.elementStart !== -1 &&
      !this.elementOversize &&
      this.base + length - this.elementStart > this.maxChars
    ) {
      this.elementOversize = true;
    }
    if (
      this.rootStart !== -1 &&
      !this.rootOversize &&
      this.base + length - this.rootStart > this.maxChars
    ) {
      this.rootOversize = true;
    }
    if (
      this.contentStart !== -1 &&
      !this.contentOversize &&
      this.base + length - this.contentStart > this.maxChars
    ) {
      this.contentOversize = true;
    }
    if (this.heldRecords !== null && this.base + length - this.rootOpen > this.maxChars) {
      // Too long to be read as one event: a list, its records given from here on.
      for (const record of this.heldRecords) out.push(record);
      this.heldRecords = null;
      this.rootStart = -1;
      this.rootOversize = false;
      this.contentStart = -1;
      this.contentOversize = false;
    }
  }

  /**
   * An `id` or `eventTypeName` key was just read: at the root, the document
   * is one event; in the root's `content`, that content is. A list of the
   * event's own held so far is no list of records: dropped, and looked for
   * anew (only another object's can be found).
   */
  private eventKeyRead(): void {
    const depth = this.stack.length;
    if (depth === 1) {
      this.rootIsEvent = true;
    } else if (this.inRootContent()) {
      this.contentIsEvent = true;
      if (this.path !== 'content.results') return;
    } else {
      return;
    }
    if (this.heldRecords === null || this.targetDepth === -1) return;
    this.heldRecords = null;
    this.targetDepth = -1;
    this.targetDone = false;
    this.path = undefined;
    this.index = 0;
  }

  /** Whether the key just read is a member of the root object's `content`. */
  private inRootContent(): boolean {
    return (
      this.stack.length === 2 &&
      this.stack[1]!.key === 'content' &&
      this.stack[0]!.kind === 'object'
    );
  }

  /** The root's `content` object opens at `start`: it may prove one event (sequence only, where it is given). */
  private openContent(start: number): void {
    this.contentIsEvent = false;
    this.contentEvent = undefined;
    if (!this.sequence || this.rootIsEvent) return;
    this.contentStart = start;
    this.contentLine = this.line;
    this.contentOversize = false;
  }

  /** The root's `content` object just closed (ending at `end`): one event is kept, given once the root closes. */
  private closeContent(end: number): void {
    if (this.contentIsEvent) {
      this.contentEvent = this.oneEvent(
        this.contentLine,
        this.contentStart,
        end,
        this.contentOversize,
      );
    }
    this.contentStart = -1;
    this.contentOversize = false;
  }

  /**
   * A record that is a whole event, from `start` to `end` (the root, or its
   * `content`): its text, or, past the record limit, only its size.
   */
  private oneEvent(line: number, start: number, end: number, oversize: boolean): ArrayElement {
    const event = { path: '', index: 0, line, document: true as const, end: this.base + end };
    return oversize
      ? { ...event, text: '', oversize: this.base + end - start }
      : { ...event, text: this.textFrom(start, end) };
  }

  /**
   * The root object just closed (ending at `end`): one event (the root, or
   * its content) is given whole, as one record; else the records held.
   */
  private closeRoot(end: number, out: ArrayElement[]): void {
    const held = this.heldRecords;
    this.heldRecords = null;
    if (this.rootIsEvent && !this.foundTarget) {
      if (this.rootStart !== -1) {
        out.push(this.oneEvent(this.documentLine, this.rootStart, end, this.rootOversize));
        this.eventGiven = true;
      }
    } else if (this.contentEvent && !this.foundTarget) {
      out.push(this.contentEvent);
      this.eventGiven = true;
    } else if (held !== null) {
      for (const record of held) out.push(record);
    }
    this.counting = null;
    if (this.path === 'results' || this.path === 'content.results') {
      const notes = this.pageNotes[this.path === 'results' ? 0 : 1];
      const count =
        notes.countIs === undefined
          ? undefined
          : { is: notes.countIs, value: Number(notes.countText) };
      this.pages.push({
        line: this.documentLine,
        records: this.index,
        ...pageMembersOf(count, notes.linksIs),
      });
    }
    this.rootStart = -1;
    this.rootOversize = false;
    this.contentStart = -1;
    this.contentOversize = false;
    this.contentEvent = undefined;
  }

  /**
   * A value other than an array, starting with `c`, at the root object's
   * `results` or its `content`'s: what the list is instead (the first
   * such, while no records array is found).
   */
  private noteListValue(c: number): void {
    if (this.targetDepth !== -1 || this.listValue || this.lastKey !== 'results') return;
    if (c === OPEN_ARRAY) return; // an array there is a list, or an event's own
    const depth = this.stack.length;
    const top = this.stack[depth - 1]!;
    if (top.kind !== 'object') return;
    const path = depth === 1 ? 'results' : top.key === 'content' ? 'content.results' : undefined;
    if (path === undefined) return;
    this.listValue = { path, is: valueKind(c) };
  }

  /** A value starting with `c` at the root object's level or its content's: noted if the page's records, count or links. */
  private noteValue(c: number): void {
    this.counting = null;
    const key = this.lastKey;
    if (key === 'results') this.noteListValue(c);
    else if (key === 'totalCount' || key === 'links') this.notePageMember(key, c);
  }

  /**
   * The value of an envelope's "totalCount" or "links" starts with `c`:
   * what it is, noted for the object it is in (the root or its content),
   * and a count's characters gathered as they come (this.counting).
   */
  private notePageMember(key: 'totalCount' | 'links', c: number): void {
    const depth = this.stack.length;
    const top = this.stack[depth - 1]!;
    if (top.kind !== 'object') return;
    const notes =
      depth === 1
        ? this.pageNotes[0]
        : top.key === 'content' && this.stack[0]!.kind === 'object'
          ? this.pageNotes[1]
          : undefined;
    if (notes === undefined) return;
    if (key === 'links') {
      notes.linksIs = c === OPEN_ARRAY ? 'an array' : valueKind(c);
      return;
    }
    notes.countIs = valueKind(c);
    notes.countText = String.fromCharCode(c);
    if (notes.countIs === 'a number') this.counting = notes;
  }

  /** The last bare value, when it is no literal or number and still the last value read. */
  private tokenError(): JsonTokenError | undefined {
    if (this.tokenStart === -1) return undefined;
    const problem = invalidToken(this.tokenText);
    return problem === undefined
      ? undefined
      : new JsonTokenError(problem, this.tokenLine, this.tokenColumn);
  }

  /** The column (from 1) of index `i` of the chunk being scanned. */
  private column(i: number): number {
    return this.base + i - this.lineStart + 1;
  }

  /** The brackets open inside the current element, below its own: 1 for an object, 0 for an array. */
  private readonly nested: number[] = [];

  /**
   * The rest of the string the scan is in, from `i`: the index just past its
   * closing quote (inString cleared), or `length` when the chunk ends first
   * (inString kept; `escaped` set when the chunk ends on an odd run of
   * backslashes, so the next chunk's first character is escaped).
   */
  private stringRest(text: string, i: number, length: number): number {
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    for (;;) {
      const close = text.indexOf('"', i);
      if (close === -1) {
        this.escaped = trailingBackslashes(text, length, i) % 2 === 1;
        return length;
      }
      const slashes = trailingBackslashes(text, close, i);
      i = close + 1;
      if (slashes % 2 === 0) {
        this.inString = false;
        return i;
      }
    }
  }

  /** Whether the scan is inside an element that is an object or an array (its frame is open). */
  private insideElement(): boolean {
    return (
      this.targetDepth !== -1 && !this.targetDone && this.stack.length === this.targetDepth + 1
    );
  }

  /**
   * The index of the bracket that closes the current element, or `length`
   * when the chunk ends first (strings and nesting carry over). A bracket
   * of the wrong kind is broken structure, as in the general scan.
   */
  private skipInsideElement(text: string, i: number, length: number): number {
    const nested = this.nested;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.inString = true;
        i = this.stringRest(text, i + 1, length);
        if (this.inString) return length;
        continue;
      }
      if (c === OPEN_OBJECT) nested.push(1);
      else if (c === OPEN_ARRAY) nested.push(0);
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (nested.length === 0) return i; // the element's own: the general scan closes it
        if (nested.pop() !== (c === CLOSE_OBJECT ? 1 : 0)) {
          throw new JsonStructureError(`Unexpected '${String.fromCharCode(c)}'`, this.line);
        }
      } else if (c === NEWLINE) {
        this.line++;
        this.lineStart = this.base + i + 1;
      }
      i++;
    }
    return length;
  }

  /** Checks the document ended properly. */
  end(): void {
    if (this.failure) throw this.failure;
    if (this.inString)
      throw new JsonStructureError('Unterminated string at end of file', this.line);
    if (this.stack.length > 0) {
      throw new JsonStructureError(
        'Unexpected end of file (the JSON document is truncated)',
        this.line,
      );
    }
    if (!this.rootClosed)
      throw new JsonStructureError('The file holds no JSON document', this.line);
  }

  /** Throws NotAListError unless the document read last (or being read) holds a list of records. */
  assertList(): void {
    if (this.eventGiven) return;
    // One event whose own list was given as records (it outgrew the limit before its id showed).
    if (this.rootIsEvent || (this.contentIsEvent && this.path === 'content.results')) {
      throw new NotAListError('oneEvent', this.documentLine, this.document);
    }
    if (!this.foundTarget) {
      const reason =
        this.rootErrorKeys === BOTH_ERROR_KEYS || this.contentErrorKeys === BOTH_ERROR_KEYS
          ? 'apiError'
          : 'noRecords';
      throw new NotAListError(
        reason,
        this.documentLine,
        this.document,
        this.rootKeys,
        this.rootKeyCount,
        this.listValue,
      );
    }
  }

  /** The list envelopes (no array) read whole since last asked, in file order. */
  takePages(): Page[] {
    const pages = this.pages;
    if (pages.length > 0) this.pages = [];
    return pages;
  }

  /** Ends a document of a sequence (a list, or NotAListError) and starts reading the next. */
  private nextDocument(): void {
    this.assertList();
    this.document++;
    this.rootClosed = false;
    this.rootIsEvent = false;
    this.contentIsEvent = false;
    this.pageNotes = [{ countText: '' }, { countText: '' }];
    this.rootErrorKeys = 0;
    this.contentErrorKeys = 0;
    this.rootKeys = [];
    this.rootKeyCount = 0;
    this.listValue = undefined;
    this.eventGiven = false;
    this.targetDepth = -1;
    this.targetDone = false;
    this.path = undefined;
    this.lastKey = null;
    this.index = 0;
  }

  /** The element ending at `end`, given (or held: heldRecords). */
  private finishElement(end: number, out: ArrayElement[]): void {
    if (this.elementStart === -1) return;
    if (this.elementOversize) {
      (this.heldRecords ?? out).push({
        text: '',
        path: this.path!,
        index: this.index++,
        line: this.elementLine,
        end: this.base + end,
        oversize: this.base + end - this.elementStart,
      });
      this.elementStart = -1;
      this.elementOversize = false;
      return;
    }
    // Only JSON's own whitespace is cut (an element starts past it): trim()
    // also took a no-break space or a byte order mark, which no JSON reader
    // takes, and the record imported from a file JSON.parse refuses.
    const elementText = jsonText.withoutSpaceAtEnd(this.textFrom(this.elementStart, end));
    if (elementText.length === 0) {
      this.elementStart = -1;
      return;
    }
    (this.heldRecords ?? out).push({
      text: elementText,
      path: this.path!,
      index: this.index++,
      line: this.elementLine,
      end: this.elementStart + elementText.length,
    });
    this.elementStart = -1;
  }

  /** The document's text from absolute offset `start` to index `end` of the current chunk. */
  private textFrom(start: number, end: number): string {
    return start >= this.base
      ? this.chunk.slice(start - this.base, end)
      : this.held.slice(start - this.heldBase) + this.chunk.slice(0, end);
  }

  /**
   * Keys matter only where the records array may still be found below, or
   * where it was found (a second key of its path: repeatsTargetPath).
   */
  private tracksKeys(depth: number): boolean {
    // The root's keys always (an event's may follow its `results`); those
    // of its `content` too: the records array may be there, or a second one
    // (TwoListsError, repeatsTargetPath).
    if (depth === 1) return true;
    return depth === 2 && this.path !== '' && this.stack[1]!.key === 'content';
  }

  /** Whether `key`, just read, names again an object or array on the found records array's path. */
  private repeatsTargetPath(key: string): boolean {
    if (this.targetDepth === -1 || !this.path) return false;
    const depth = this.stack.length;
    if (depth >= this.targetDepth) return false;
    const path = this.path.split('.');
    // Inside the path's own objects only: `content` of the root, `results` of that `content`.
    return key === path[depth - 1] && (depth === 1 || this.stack[1]!.key === path[0]);
  }

  private pathWith(key: string | null): string | null {
    const keys: string[] = [];
    for (let d = 1; d < this.stack.length; d++) {
      const k = this.stack[d]!.key;
      if (k === null) return null;
      keys.push(k);
    }
    if (this.stack.length > 0) {
      if (key === null) return null;
      keys.push(key);
    }
    return keys.join('.');
  }
}

/** An object key's text, quotes included, as its string; broken (a raw control character, an unknown escape) is broken structure. */
function parseKey(text: string, line: number): string {
  try {
    return JSON.parse(text) as string;
  } catch {
    throw new JsonStructureError(
      'An object key holds a raw control character or an escape JSON does not know',
      line,
    );
  }
}

/**
 * The JSON objects or arrays written one after another on one line
 * (`{…}{…}`: `curl >> file` appends API answers, which end without a line
 * break), each as its text; undefined when the line holds fewer than two,
 * or anything else between them. A last one left open is cut as it is (its
 * parse then says what is wrong).
 */
export function concatenatedDocuments(line: string): string[] | undefined {
  const documents: string[] = [];
  let i = skipSpaceAndMark(line, 0);
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) return undefined;
    const end = valueEnd(line, i);
    documents.push(line.slice(i, end));
    i = skipSpaceAndMark(line, end);
  }
  return documents.length >= 2 ? documents : undefined;
}

/**
 * Past blanks and a byte order mark between them: files each saved with one
 * and joined by `cat` carry the later ones' marks between the documents.
 */
function skipSpaceAndMark(line: string, i: number): number {
  const next = skipSpace(line, i);
  return line.charCodeAt(next) === BYTE_ORDER_MARK ? skipSpace(line, next + 1) : next;
}

/**
 * Whether a line is a list envelope by its brackets and strings alone, its
 * commas and colons unchecked: an object with no event key whose `results`
 * (or whose `content`'s, that content no event either) opens an array. For
 * a line whose punctuation failed before its records array opened
 * (`{"links": [] "results": [...]}`): a list envelope, not one broken
 * event, so refused naming the place as it is pretty-printed.
 */
export function looselyOpensRecords(line: string): boolean {
  const start = skipSpace(line, 0);
  if (line.charCodeAt(start) !== OPEN_OBJECT) return false;
  const root = looseMembers(line, start);
  if (EVENT_KEYS.some((key) => root.has(key))) return false;
  if (line.charCodeAt(root.get('results') ?? -1) === OPEN_ARRAY) return true;
  const content = root.get('content') ?? -1;
  if (line.charCodeAt(content) !== OPEN_OBJECT) return false;
  const members = looseMembers(line, content);
  return (
    !EVENT_KEYS.some((key) => members.has(key)) &&
    line.charCodeAt(members.get('results') ?? -1) === OPEN_ARRAY
  );
}

/**
 * The keys of the object opening at `start` (the first of each), with where
 * each one's value starts, read past a missing or doubled comma or colon.
 * Each turn reads a key's string, so the scan always moves on.
 */
function looseMembers(line: string, start: number): Map<string, number> {
  const members = new Map<string, number>();
  let i = skipSpace(line, start + 1);
  while (line.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(line, i);
    const key = parseLooseKey(line.slice(i, keyEnd));
    i = skipSpace(line, keyEnd);
    while (line.charCodeAt(i) === COLON) i = skipSpace(line, i + 1);
    if (!members.has(key)) members.set(key, i);
    i = skipSpace(line, valueEnd(line, i));
    while (line.charCodeAt(i) === COMMA) i = skipSpace(line, i + 1);
  }
  return members;
}

/** A key's text decoded, or as written between its quotes when it is no JSON string. */
function parseLooseKey(text: string): string {
  try {
    return JSON.parse(text) as string;
  } catch {
    return text.slice(1, -1);
  }
}
