import { errorMessage } from '@/lib/domain/errors';
import { printable } from '@/lib/domain/printable';
import { withoutByteOrderMark } from '@/lib/domain/json-text';
import { NOT_UTF8 } from '@/lib/domain/utf8';
import { JsonArraySplitter, RepeatedListKeyError, recordsPath } from '@/lib/ingest/json-stream';
import {
  AnswerTooLargeError,
  challengeOf,
  DigestHttpClient,
  type HttpAnswer,
  headerOf,
  MAX_FRESH_NONCES,
  staleNonces,
  UnknownEncodingError,
  UnreadableBodyError,
} from './digest-http';

/**
 * The source organization's list endpoint, read politely and persistently:
 * a request budget per minute (the real service documents 500), `429` obeyed
 * with its `Retry-After`, 5xx, `TIMEOUT_WHILE_PAGING` and dropped or refused
 * connections retried with exponential back-off up to a bound, and the
 * answers that retrying cannot fix (a wrong key, an unknown org, a host that
 * never answers) turned into one clear MirrorError.
 */

export type SourceOptions = {
  /** `…/api/public/v1.0` of the hosted service or of a self-hosted installation. */
  baseUrl: string;
  orgId: string;
  publicKey: string;
  privateKey: string;
  /** Requests per rolling minute (default 500, the real service's documented limit). */
  requestsPerMinute?: number;
  /** Consecutive failed attempts of one request before giving up (default 8). */
  maxRetries?: number;
  /** First back-off, doubled per attempt up to 30 s (default 500 ms). */
  backoffMs?: number;
  /**
   * Told before each wait longer than a blink: one the source asked for
   * (429 with or without Retry-After; `reason` is "rate limited", with the
   * source's detail when it gave one), a back-off before a retry (`reason`
   * says what failed and which retry comes), and the rest of the minute
   * when its request budget is spent. A mirror's log is otherwise silent
   * for the minute or more these may take.
   */
  onWait?: (wait: { reason: string; ms: number }) => void;
  /** Per-request deadline for the whole answer, retried like a dropped connection (default 60 s). */
  timeoutMs?: number;
  /**
   * The longest answer read, as sent and once decoded (default: the most a
   * string holds, about 512 MiB); a longer one ends the mirror (ANSWER_TOO_LARGE).
   */
  maxAnswerBytes?: number;
};

export type MirrorErrorCode =
  | 'WRONG_KEY'
  | 'NOT_A_READER'
  | 'ORG_NOT_FOUND'
  | 'NOT_FOUND'
  | 'UNREACHABLE'
  | 'REJECTED'
  | 'SOURCE_FAILED'
  | 'UNTRUSTED_CERTIFICATE'
  | 'ANSWER_TOO_LARGE'
  | 'ALREADY_RUNNING';

/** Thrown by a SourceClient's request or wait cut short by `stop()`. */
export class SourceStopped extends Error {
  constructor() {
    super('stopped on request');
    this.name = 'SourceStopped';
  }
}

/** A failure retrying cannot fix, with a message for the person running the mirror. */
export class MirrorError extends Error {
  constructor(
    readonly code: MirrorErrorCode,
    message: string,
    /**
     * A source that had served a page is down or failing for now
     * (unreachable, 5xx or rate limited past the retries): a `--follow`
     * mirror waits and tries again instead of ending. One that never served
     * a page is more likely a wrong --source behind a proxy: it ends.
     */
    readonly transient = false,
  ) {
    super(message);
    this.name = 'MirrorError';
  }
}

export type PageRequest = {
  minDate?: string;
  maxDate?: string;
  pageNum: number;
  itemsPerPage: number;
};

/**
 * One element of a page's `results` as served: an event object, or anything
 * else a faulty source may put there (null, a number), which the mirror
 * rejects as no event rather than reading fields of.
 */
export type SourceRecord = unknown;

/**
 * A record of a page as parsed, and its own JSON text in the source's answer:
 * the copy stores that text (big integers, `1.0`, key order kept), not a
 * re-serialisation of the parsed value. A page whose records' texts cannot
 * be cut from it is refused (parseListing), so every record has one.
 */
export type SourcePageRecord = { value: SourceRecord; text: string };

/** Network errors that mean "nobody answers there" rather than "the line dropped". */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/**
 * TLS verification failures: retrying cannot fix them, and the usual cause is
 * a self-hosted installation's private CA that Node was not told about.
 */
const UNTRUSTED_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * What to do about a certificate refused with `code`: a private CA is the
 * usual cause, but NODE_EXTRA_CA_CERTS cannot help a certificate issued for
 * another name, or one out of its dates.
 */
function certificateAdvice(code: string, hostname: string): string {
  switch (code) {
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `It is issued for other names than ${hostname}: name the host in --source as the certificate does.`;
    case 'CERT_HAS_EXPIRED':
      return "It has expired (or this machine's clock is ahead): the source's certificate must be renewed.";
    case 'CERT_NOT_YET_VALID':
      return "It is not valid yet: is this machine's clock behind?";
    default:
      return "For a self-hosted installation with its own CA, set NODE_EXTRA_CA_CERTS to the CA's PEM file.";
  }
}

/** Said when an answer suggests --source names something other than the API's base. */
const BASE_URL_HINT =
  "is --source the API's base URL (https://cloud.mongodb.com/api/public/v1.0, or …/api/public/v1.0 of a self-hosted installation)?";
/** Said instead once the source has served pages of events: --source is right. */
const AFTER_PAGES_HINT =
  'the source served this mirror pages of events before, so --source is right: has something in front of it (a proxy, a single sign-on) changed? What was copied is kept, and the next run goes on from there.';

const MAX_BACKOFF_MS = 30_000;
/** The longest Retry-After obeyed as asked. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** 429s are the source asking for patience, not failing: allow more of them in a row. */
const MAX_THROTTLED = 30;

export class SourceClient {
  requests = 0;
  retries = 0;
  private readonly http: DigestHttpClient;
  private readonly base: URL;
  /**
   * The source org's events path, under the base's path without a trailing
   * slash: a bare origin's "/" would make "//orgs/…", which servers
   * redirect or refuse.
   */
  private readonly eventsPath: string;
  private readonly sent: number[] = [];
  private answered = false;
  /** A list was read: a later answer that is no list is a passing fault, not a wrong --source. */
  private listed = false;
  private readonly budget: number;
  private readonly maxRetries: number;
  private readonly backoffMs: number;
  private stopped = false;
  /** Wakes the waits under way (back-off, Retry-After, the request budget) when stopped. */
  private readonly waking = new Set<() => void>();

  constructor(
    readonly options: SourceOptions,
    /** How waits are spent (tests); by default a timer, cleared by a stop. */
    private readonly sleep?: (ms: number) => Promise<void>,
  ) {
    this.base = new URL(options.baseUrl.replace(/\/+$/, ''));
    this.eventsPath = `${this.base.pathname.replace(/\/+$/, '')}/orgs/${encodeURIComponent(options.orgId)}/events`;
    this.http = new DigestHttpClient(
      this.base,
      { username: options.publicKey, password: options.privateKey },
      {
        timeoutMs: options.timeoutMs,
        maxAnswerBytes: options.maxAnswerBytes,
        // Every request sent spends the budget and is counted, a
        // challenge's round trip and a stale nonce's fresh try too: the
        // source's limit counts them.
        beforeEachRequest: async () => {
          await this.spendBudget();
          this.requests++;
        },
      },
    );
    this.budget = Math.max(1, options.requestsPerMinute ?? 500);
    this.maxRetries = Math.max(0, options.maxRetries ?? 8);
    this.backoffMs = Math.max(1, options.backoffMs ?? 500);
  }

  /** One page of the source org's events, newest first, with raw. */
  async page(request: PageRequest): Promise<SourcePageRecord[]> {
    const params = new URLSearchParams();
    if (request.minDate !== undefined) params.set('minDate', request.minDate);
    if (request.maxDate !== undefined) params.set('maxDate', request.maxDate);
    params.set('includeCount', 'false');
    params.set('includeRaw', 'true');
    params.set('itemsPerPage', String(request.itemsPerPage));
    params.set('pageNum', String(request.pageNum));
    const path = `${this.eventsPath}?${params}`;
    // A 200 that is no list (cut short when the connection closed, a
    // proxy's HTML page) after good pages is a passing fault: retried like
    // a 5xx. On the first request it says --source is likely wrong.
    for (let failures = 0; ; ) {
      const answer = await this.getWithRetries(path);
      const listing = parseListing(answer.body);
      if (typeof listing !== 'string') {
        this.listed = true;
        return listing;
      }
      // What came says where to look: text/html is a proxy's or a sign-in's page.
      const head = answerHead(
        answer.status,
        headerOf(answer, 'content-type'),
        headerOf(answer, 'content-encoding'),
      );
      if (!this.listed) {
        throw new MirrorError(
          'SOURCE_FAILED',
          `The source's answer to ${path}, ${head}, ${listing}: ${BASE_URL_HINT}`,
        );
      }
      if (failures >= this.maxRetries) {
        throw new MirrorError(
          'SOURCE_FAILED',
          `The source's answer to ${path}, ${head}, ${listing}, ${failures + 1} times in a row`,
          true,
        );
      }
      failures++;
      await this.retry(failures, this.maxRetries, `the source's answer ${listing}`);
    }
  }

  close(): void {
    this.http.close();
  }

  /**
   * A stop request: the request under way and any wait (a back-off, a long
   * Retry-After) end now with SourceStopped, as does every later request.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.http.abort(new SourceStopped());
    for (const wake of this.waking) wake();
  }

  /** `sleep`, cut short by a stop (SourceStopped). */
  private async wait(ms: number): Promise<void> {
    if (this.stopped) throw new SourceStopped();
    let wake: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
      this.waking.add(resolve);
    });
    const slept = this.sleep
      ? this.sleep(ms)
      : new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    try {
      await Promise.race([slept, woken]);
    } finally {
      clearTimeout(timer);
      this.waking.delete(wake!);
    }
    if (this.stopped) throw new SourceStopped();
  }

  private async getWithRetries(path: string): Promise<HttpAnswer> {
    let failures = 0;
    let throttled = 0;
    for (;;) {
      let answer: HttpAnswer;
      try {
        answer = await this.http.get(path);
      } catch (error) {
        if (error instanceof SourceStopped) throw error;
        if (error instanceof AnswerTooLargeError) {
          // Asked again, the same page is as long: ending says why at once.
          throw new MirrorError(
            'ANSWER_TOO_LARGE',
            `The source's answer to ${path} is larger than ${error.limit.toLocaleString('en-US')} bytes, more than a page of records within the record size limit can be (raise the limit with --max-record-bytes or IMPORT_MAX_RECORD_BYTES)`,
          );
        }
        if (error instanceof UnknownEncodingError) {
          throw new MirrorError(
            'REJECTED',
            `The source's answer to ${path} is encoded as "${printable(error.encoding.slice(0, 80))}" (Content-Encoding), which this client does not read (it asks for gzip, deflate or br): ${this.hint()}`,
          );
        }
        const code = (error as NodeJS.ErrnoException).code;
        // OpenSSL's messages end in a newline.
        const reason = errorMessage(error).trim();
        if (error instanceof UnreadableBodyError) {
          // The host answered: "Cannot reach" sent people after the network
          // when a proxy's page or a broken encoder was what failed.
          this.answered = true;
          const head = answerHead(error.status, error.contentType, error.contentEncoding);
          if (failures >= this.maxRetries) {
            throw new MirrorError(
              'SOURCE_FAILED',
              `${this.base.origin} answered ${path} with ${head}, but its body could not be read: ${reason}${afterAttempts(failures)}`,
              this.listed,
            );
          }
          failures++;
          await this.retry(
            failures,
            this.maxRetries,
            `the source answered ${head} but its body could not be read (${reason})`,
          );
          continue;
        }
        if (this.base.protocol === 'https:' && /wrong version number/i.test(reason)) {
          // Retrying cannot help: the port answers, but not in TLS.
          throw new MirrorError(
            'UNREACHABLE',
            `${this.base.origin} does not answer in TLS (${reason.split('\n')[0]}): is it http:// rather than https://?`,
          );
        }
        if (code && UNTRUSTED_CODES.has(code)) {
          throw new MirrorError(
            'UNTRUSTED_CERTIFICATE',
            `The certificate of ${this.base.origin} is not trusted (${code}: ${reason}). ${certificateAdvice(code, this.base.hostname)}`,
          );
        }
        // Nobody has answered yet and nobody listens there: say so soon. A
        // connection closed at once, before any answer, to a plain-HTTP
        // URL is what a TLS port does with a request it cannot read (9
        // attempts took 67 s to say only "socket hang up").
        const tlsOnly = !this.answered && this.base.protocol === 'http:' && code === 'ECONNRESET';
        const limit =
          (!this.answered && code && UNREACHABLE_CODES.has(code)) || tlsOnly ? 2 : this.maxRetries;
        if (failures >= limit) {
          throw new MirrorError(
            'UNREACHABLE',
            `Cannot reach ${this.base.origin}: ${reason}${afterAttempts(failures)}${
              tlsOnly
                ? ': it closes plain-HTTP connections unanswered, as a TLS port does: is it https:// rather than http://?'
                : ''
            }`,
            this.listed,
          );
        }
        failures++;
        await this.retry(failures, limit, `the request failed (${reason.split('\n')[0]!})`);
        continue;
      }
      this.answered = true;
      if (answer.status === 200) return answer;
      const errorCode = errorCodeOf(answer);
      if (answer.status === 429) {
        if (throttled >= MAX_THROTTLED) {
          throw new MirrorError(
            'SOURCE_FAILED',
            `The source kept answering 429 (rate limited) for ${path}`,
            this.listed,
          );
        }
        throttled++;
        const asked = retryAfterMs(headerOf(answer, 'retry-after'));
        // At most 10 minutes: a larger one is more likely a fault than a plan.
        const ms =
          asked === undefined ? this.backoff(throttled) : Math.min(asked, MAX_RETRY_AFTER_MS);
        // The source's own words say why (a lockout after failed sign-ins reads
        // differently from a request budget spent).
        const detail = detailOf(answer, 160);
        this.options.onWait?.({ reason: detail ? `rate limited (${detail})` : 'rate limited', ms });
        await this.wait(ms);
        // Counted once made: a wait cut short by a stop is no retry.
        this.retries++;
        continue;
      }
      if (answer.status >= 500 || errorCode === 'TIMEOUT_WHILE_PAGING') {
        if (failures >= this.maxRetries) {
          throw new MirrorError(
            'SOURCE_FAILED',
            `The source failed ${failures + 1} times in a row on ${path}: ${statusLine(answer.status, errorCode)}`,
            this.listed,
          );
        }
        failures++;
        await this.retry(
          failures,
          this.maxRetries,
          `the source answered ${statusLine(answer.status, errorCode)}`,
        );
        continue;
      }
      throw this.refusal(answer, errorCode);
    }
  }

  private refusal(answer: HttpAnswer, errorCode: string | undefined): MirrorError {
    const org = this.options.orgId;
    if (answer.status === 401 && errorCode !== 'USER_UNAUTHORIZED' && !challengeOf(answer)) {
      // Not one this client can answer (qop=auth-int alone, an unknown
      // algorithm, another scheme): the key was never sent, so it is not
      // what is wrong.
      const offered = answer.challenges.map((c) => printable(c.slice(0, 200))).join('; ');
      if (offered !== '') {
        return new MirrorError(
          'REJECTED',
          `The source asks for an authentication this mirror does not do (WWW-Authenticate: ${offered}); it answers Digest with MD5 or SHA-256 and qop=auth`,
        );
      }
    }
    if (staleNonces(answer)) {
      // stale=true is the source's word that the digest, so the key, was
      // right and the nonce it had just issued was not: its instances'
      // clocks or nonce secrets disagree, or a proxy replays old answers.
      return new MirrorError(
        'SOURCE_FAILED',
        `The source called each of ${MAX_FRESH_NONCES + 1} nonces in a row stale (401 with stale=true), the last ${MAX_FRESH_NONCES} fresh from it: the key is right (stale means the digest matched), but the source does not accept the nonces it issues (its clocks or its instances' nonce secrets disagree?)`,
        this.listed,
      );
    }
    if (answer.status === 401) {
      return errorCode === 'USER_UNAUTHORIZED'
        ? new MirrorError(
            'NOT_A_READER',
            `The key ${this.options.publicKey} may not read the events of org ${org} at the source (it needs Organization Member or higher)`,
          )
        : new MirrorError(
            'WRONG_KEY',
            `The source refused the key ${this.options.publicKey}: check the public and private key (${statusLine(401, errorCode)})`,
          );
    }
    if (answer.status === 404) {
      return errorCode === 'ORG_NOT_FOUND'
        ? new MirrorError(
            'ORG_NOT_FOUND',
            `The source has no organization ${org} (404 ORG_NOT_FOUND)`,
          )
        : new MirrorError(
            'NOT_FOUND',
            `The source answered ${statusLine(404, errorCode)} for ${this.base.origin}${this.eventsPath}: ${this.listed ? AFTER_PAGES_HINT : `${BASE_URL_HINT} Is --source-org right?`}`,
          );
    }
    if (answer.status >= 300 && answer.status < 400) {
      // Not followed: a redirect is a wrong base URL (http for https, a
      // dashboard's path), which the person running the mirror should fix.
      const location = headerOf(answer, 'location');
      return new MirrorError(
        'REJECTED',
        `The source redirected the request (${answer.status}) to ${location === undefined ? 'nowhere named' : printable(location)}: ${this.hint()}`,
      );
    }
    const detail = detailOf(answer);
    return new MirrorError(
      'REJECTED',
      detail === undefined
        ? `The source refused the request (${statusLine(answer.status, errorCode)}) with something that is not the API's error: ${this.hint()}`
        : `The source refused the request (${statusLine(answer.status, errorCode)}): ${detail}`,
    );
  }

  /** What an answer that is not the API's suggests: a wrong --source, unless pages were served. */
  private hint(): string {
    return this.listed ? AFTER_PAGES_HINT : BASE_URL_HINT;
  }

  /** The back-off before retry `attempt` of at most `limit`, said (onWait) with what failed. */
  private async retry(attempt: number, limit: number, failed: string): Promise<void> {
    const ms = this.backoff(attempt);
    this.tellWait(`${failed}; retry ${attempt} of ${limit}`, ms);
    await this.wait(ms);
    // Counted once made: a wait cut short by a stop is no retry.
    this.retries++;
  }

  /** onWait, for a wait of a second or more (shorter ones pass unseen). */
  private tellWait(reason: string, ms: number): void {
    if (ms >= 1000) this.options.onWait?.({ reason, ms });
  }

  /** Exponential with full jitter's upper half: spreads retries of many mirrors. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  /** Waits until a request fits in the rolling minute's budget. */
  private async spendBudget(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.sent.length > 0 && this.sent[0]! <= now - 60_000) this.sent.shift();
      if (this.sent.length < this.budget) {
        this.sent.push(now);
        return;
      }
      const ms = this.sent[0]! + 60_000 - now + 1;
      this.tellWait(`the budget of ${this.budget} requests a minute is spent`, ms);
      await this.wait(ms);
    }
  }
}

/**
 * "200 (Content-Type text/html, Content-Encoding gzip)": what an answer said
 * of itself (the headers it sent, written out printable and cut short).
 */
function answerHead(
  status: number,
  contentType: string | undefined,
  contentEncoding: string | undefined,
): string {
  const said = (name: string, value: string | undefined) =>
    value === undefined ? [] : [`${name} ${printable(value.slice(0, 100))}`];
  const headers = [
    ...said('Content-Type', contentType),
    ...said('Content-Encoding', contentEncoding),
  ];
  return headers.length === 0 ? String(status) : `${status} (${headers.join(', ')})`;
}

/** " (after 3 attempts)" once `failures` requests have failed before the last; nothing for the first. */
function afterAttempts(failures: number): string {
  return failures > 0 ? ` (after ${failures + 1} attempts)` : '';
}

/** "404 ORG_NOT_FOUND", or "308" when the answer names no error code. */
function statusLine(status: number, errorCode: string | undefined): string {
  return errorCode ? `${status} ${errorCode}` : String(status);
}

/**
 * The source's error code and detail (headers and body are the source's
 * text) go into messages shown on a terminal: each comes back printable, an
 * escape sequence, CR or bidirectional control written out, not obeyed.
 */
function errorCodeOf(answer: HttpAnswer): string | undefined {
  const header = headerOf(answer, 'x-error-code');
  if (header) return printable(header);
  try {
    const body = JSON.parse(answer.body) as { errorCode?: unknown };
    return typeof body.errorCode === 'string' ? printable(body.errorCode) : undefined;
  } catch {
    return undefined;
  }
}

function detailOf(answer: HttpAnswer, maxLength = Infinity): string | undefined {
  try {
    const body = JSON.parse(answer.body) as { detail?: unknown };
    return typeof body.detail === 'string' ? printable(body.detail.slice(0, maxLength)) : undefined;
  } catch {
    return undefined;
  }
}

/** A list body's records, or what is wrong with it ("is not JSON", "has no \"results\" list"). */
export function parseListing(served: string): SourcePageRecord[] | string {
  // A byte order mark, which a JSON parser may ignore (RFC 8259, 8.1), as import does.
  const text = withoutByteOrderMark(served);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.includes(NOT_UTF8) ? 'is not JSON (nor UTF-8)' : 'is not JSON';
  }
  // The list is the one the import's rule names (recordsPath): a page that
  // is one event, or holds a `content.results` besides, gave its records no
  // texts of their own, and every one was stored re-serialized.
  if (recordsPath(body) !== 'results') {
    const event =
      typeof body === 'object' && body !== null && ('id' in body || 'eventTypeName' in body);
    return event
      ? 'is one event (it has an "id" or "eventTypeName"), not a list of events'
      : 'has no "results" list';
  }
  const results = (body as { results: SourceRecord[] }).results;
  let texts: string[] | undefined;
  try {
    texts = resultTexts(text);
  } catch (error) {
    // The same list named twice, or a second list beside it.
    if (error instanceof RepeatedListKeyError) return `is no one list of events: ${error.reason}`;
    throw error;
  }
  if (texts?.length !== results.length) {
    // Each record's text tells whether it held bytes that are no UTF-8; without them, the page cannot.
    if (text.includes(NOT_UTF8)) return 'is not UTF-8';
    // A record is stored only as the source wrote it, never re-serialized.
    return 'has records whose own text could not be cut from it';
  }
  return results.map((value, i) => ({ value, text: texts[i]! }));
}

/**
 * Retry-After as seconds or as an HTTP-date, in ms from now (never
 * negative), or undefined when it is neither.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now);
}

/** The texts of the `results` elements of a list body, or undefined if it has none. */
function resultTexts(body: string): string[] | undefined {
  const splitter = new JsonArraySplitter();
  const elements = splitter.push(body);
  splitter.end();
  return splitter.path === 'results' ? elements.map((element) => element.text) : undefined;
}
