import { errorMessage } from '@/lib/domain/errors';
import { constants as bufferConstants } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { computeHa1 } from '@/lib/auth/api-keys';
import {
  computeDigestResponse,
  digestAlgorithm,
  type DigestAlgorithmName,
  parseAuthParams,
  TOKEN,
} from '@/lib/auth/digest';
import { decodeMarkingInvalid } from '@/lib/domain/utf8';

/**
 * A small HTTP Digest client (RFC 7616, qop=auth) for the mirror: GET only,
 * one nonce reused with a growing nonce count like a browser, a fresh
 * challenge when the server says the nonce is stale. Over https it trusts
 * Node's CAs plus NODE_EXTRA_CA_CERTS (a private CA of a self-hosted
 * installation). Connections are kept alive between pages.
 */

export type HttpAnswer = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /**
   * Each WWW-Authenticate header as sent: `headers` joins several into one
   * line ("Digest … algorithm=SHA-256, Digest … algorithm=MD5"), which reads
   * as no challenge at all.
   */
  challenges: string[];
};

export type DigestCredentials = { username: string; password: string };

/**
 * The longest answer that can be read as text at all: a body decoding to
 * more UTF-8 bytes than a string can hold UTF-16 units failed in the
 * response's handler, out of reach of any catch (the process died).
 */
export const MAX_ANSWER_BYTES = bufferConstants.MAX_STRING_LENGTH;

/** An answer in a Content-Encoding other than those asked for: asked again, it would come so again. */
export class UnknownEncodingError extends Error {
  constructor(readonly encoding: string) {
    super(`the answer is encoded as "${encoding}", which this client does not read`);
    this.name = 'UnknownEncodingError';
  }
}

/** An answer longer than the client reads (as sent, or once decoded): retrying cannot shorten it. */
export class AnswerTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit.toLocaleString('en-US')} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

/**
 * An answer whose status and headers came but whose body could not be read
 * (cut short, not decoding, not complete in time): the host answered, and
 * what it answered says where to look (a proxy's page, a broken encoder).
 * The message is what failed; retrying may help, as for a dropped connection.
 */
export class UnreadableBodyError extends Error {
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  constructor(
    readonly status: number,
    headers: http.IncomingHttpHeaders,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnreadableBodyError';
    this.contentType = headers['content-type'];
    this.contentEncoding = headers['content-encoding'];
  }
}

type Challenge = {
  realm: string;
  nonce: string;
  algorithm: DigestAlgorithmName;
  opaque?: string;
  /** The server's word that the nonce, not the credentials, failed (RFC 7616 3.3). */
  stale: boolean;
};

/** Reads a `WWW-Authenticate: Digest …` header (auth-params parsed by lib/auth/digest.ts). */
export function parseDigestChallenge(header: string | undefined): Challenge | null {
  if (!header) return null;
  const match = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!match) return null;
  const params = parseAuthParams(match[1]!);
  const realm = params?.get('realm');
  const nonce = params?.get('nonce');
  if (!params || realm === undefined || !nonce) return null;
  const qop = params.get('qop');
  if (qop !== undefined && !qop.split(',').some((q) => q.trim() === 'auth')) return null;
  const algorithm = digestAlgorithm(params.get('algorithm'));
  if (!algorithm) return null;
  return {
    realm,
    nonce,
    algorithm,
    opaque: params.get('opaque'),
    stale: /^true$/i.test(params.get('stale') ?? ''),
  };
}

/** A list element opening a challenge: an auth-scheme alone, or one followed by its first parameter or token68. */
const CHALLENGE_START = new RegExp(`^${TOKEN.source}+(?:[ \\t]+[^=\\s]|$)`);

/**
 * The challenges of one WWW-Authenticate line, each as its own header would
 * be. RFC 9110 11.6.1 lets a server (or a proxy adding its own) join several
 * in one line with commas, the same commas that separate a challenge's
 * auth-params: `Basic realm="proxy", Digest realm="x", nonce="…"` read as one
 * Digest challenge fails, and the key was never sent. An element opening
 * with a scheme (a token, then a space and no `=`) starts a challenge; an
 * auth-param (`name=value`) belongs to the one before it. Commas within a
 * quoted-string (`qop="auth,auth-int"`) separate nothing.
 */
export function splitChallenges(header: string): string[] {
  const elements: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i];
    if (quoted) {
      // A quoted-pair as parseAuthParams reads one: only before '"' or '\\'.
      if (ch === '\\' && (header[i + 1] === '"' || header[i + 1] === '\\')) i++;
      else if (ch === '"') quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      elements.push(header.slice(start, i));
      start = i + 1;
    }
  }
  elements.push(header.slice(start));
  const challenges: string[] = [];
  for (const element of elements) {
    const text = element.trim();
    // Empty list elements (",,") are allowed by the list syntax.
    if (text === '') continue;
    if (challenges.length === 0 || CHALLENGE_START.test(text)) challenges.push(text);
    else challenges[challenges.length - 1] += `, ${text}`;
  }
  return challenges;
}

/**
 * The first Digest challenge of an answer this client can meet: a server may
 * offer one per algorithm (RFC 7616 3.7, SHA-256 before MD5), a proxy a
 * Basic one besides, each in a header of its own or several in one.
 */
export function challengeOf(answer: HttpAnswer): Challenge | null {
  for (const header of answer.challenges) {
    for (const offered of splitChallenges(header)) {
      const challenge = parseDigestChallenge(offered);
      if (challenge) return challenge;
    }
  }
  return null;
}

/** Fresh nonces tried for one request whose nonce the server calls stale, before its 401 is returned. */
export const MAX_FRESH_NONCES = 3;

/** Whether `answer` is a 401 saying the nonce was stale: the credentials were right (RFC 7616 3.3). */
export function staleNonces(answer: HttpAnswer): boolean {
  return answer.status === 401 && challengeOf(answer)?.stale === true;
}

export type DigestClientOptions = {
  /** The deadline of each request's whole answer (default 60 s). */
  timeoutMs?: number;
  /** The longest answer to read; never more than MAX_ANSWER_BYTES, which a string cannot hold. */
  maxAnswerBytes?: number;
  /**
   * Awaited before each request sent, the challenge's round trip and a
   * stale nonce's fresh try included (a request budget); what it throws
   * fails the get.
   */
  beforeEachRequest?: () => Promise<void>;
};

export class DigestHttpClient {
  private challenge: Challenge | undefined;
  /** Whether the server has accepted a request made with `challenge`'s nonce. */
  private challengeAccepted = false;
  private nc = 0;
  private readonly agent: http.Agent;
  /** The requests under way, each with how to fail it. */
  private readonly inFlight = new Set<(reason: Error) => void>();
  private aborted: Error | undefined;
  /** The longest answer read, as sent and once decoded. */
  private readonly answerLimit: number;

  private readonly timeoutMs: number;
  private readonly beforeEachRequest: () => Promise<void>;

  constructor(
    private readonly origin: URL,
    private readonly credentials: DigestCredentials,
    options: DigestClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.answerLimit = Math.min(options.maxAnswerBytes ?? MAX_ANSWER_BYTES, MAX_ANSWER_BYTES);
    this.beforeEachRequest = options.beforeEachRequest ?? (() => Promise.resolve());
    this.agent =
      origin.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, maxSockets: 1 })
        : new http.Agent({ keepAlive: true, maxSockets: 1 });
  }

  /**
   * GET `pathAndQuery`, authenticated. Returns the final answer (a 401 when
   * the key is wrong); throws on network failures (connection refused or
   * reset, timeouts), which the caller may retry.
   */
  async get(pathAndQuery: string): Promise<HttpAnswer> {
    if (!this.challenge) {
      const first = await this.send(pathAndQuery, false);
      if (first.status !== 401) return first;
      const challenge = challengeOf(first);
      if (!challenge) return first;
      this.adopt(challenge);
    }
    let answer = await this.send(pathAndQuery, true);
    for (let fresh = 0; answer.status === 401 && fresh < MAX_FRESH_NONCES; fresh++) {
      // A fresh try when the nonce is what failed: the server says it is
      // stale, or it was accepted before (another instance, a restart forgot
      // it; once only, as adopting a nonce forgets it was accepted). A key
      // refused with a fresh nonce would be refused again, and each try
      // spends one of the failures the source allows before it locks the
      // key out; stale=true says the digest was right (RFC 7616 3.3), so
      // its tries spend none, but a few in a row say the source's nonces
      // fail on its side: it is told as such (staleNonces), not as a key.
      const challenge = challengeOf(answer);
      if (!challenge || !(challenge.stale || this.challengeAccepted)) break;
      this.adopt(challenge);
      answer = await this.send(pathAndQuery, true);
    }
    // Proof the nonce passed: an answer made after authentication. A 429
    // (a lockout comes before the check), 403 or 5xx proves nothing.
    if (answer.status < 500 && ![401, 403, 429].includes(answer.status)) {
      this.challengeAccepted = true;
    }
    return answer;
  }

  close(): void {
    this.agent.destroy();
  }

  private adopt(challenge: Challenge): void {
    this.challenge = challenge;
    this.challengeAccepted = false;
    this.nc = 0;
  }

  /** Fails the request under way and every later one with `reason` (a stop request). */
  abort(reason: Error): void {
    this.aborted ??= reason;
    for (const fail of this.inFlight) fail(reason);
  }

  private authorization(uri: string): string {
    const c = this.challenge!;
    this.nc += 1;
    const nc = this.nc.toString(16).padStart(8, '0');
    const cnonce = randomBytes(8).toString('hex');
    const ha1 = computeHa1(
      c.algorithm.startsWith('MD5') ? 'MD5' : 'SHA-256',
      this.credentials.username,
      c.realm,
      this.credentials.password,
    );
    const response = computeDigestResponse({
      algorithm: c.algorithm,
      ha1,
      nonce: c.nonce,
      nc,
      cnonce,
      qop: 'auth',
      method: 'GET',
      uri,
    });
    const parts = [
      `username=${quoted(this.credentials.username)}`,
      `realm=${quoted(c.realm)}`,
      `nonce=${quoted(c.nonce)}`,
      `uri=${quoted(uri)}`,
      `response="${response}"`,
      `algorithm=${c.algorithm}`,
      'qop=auth',
      `nc=${nc}`,
      `cnonce="${cnonce}"`,
    ];
    if (c.opaque !== undefined) parts.push(`opaque=${quoted(c.opaque)}`);
    return `Digest ${parts.join(', ')}`;
  }

  /** One request, once beforeEachRequest lets it go (its nonce count taken then, in the order sent). */
  private async send(pathAndQuery: string, authenticated: boolean): Promise<HttpAnswer> {
    await this.beforeEachRequest();
    return this.sendNow(pathAndQuery, authenticated ? this.authorization(pathAndQuery) : undefined);
  }

  private sendNow(pathAndQuery: string, authorization?: string): Promise<HttpAnswer> {
    const transport = this.origin.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      if (this.aborted) {
        reject(this.aborted);
        return;
      }
      /** The answer's status and headers, once they came. */
      let head: http.IncomingMessage | undefined;
      // The socket's idle timeout below never fires for a source sending a
      // byte now and then: the whole answer has a deadline too.
      const failWith = (reason: Error) => {
        settle();
        reject(reason);
      };
      /** A failure after the answer's head is its body's (UnreadableBodyError), unless already told apart. */
      const ofBody = (reason: Error): Error =>
        head === undefined ||
        reason instanceof AnswerTooLargeError ||
        reason instanceof UnknownEncodingError ||
        reason instanceof UnreadableBodyError
          ? reason
          : new UnreadableBodyError(head.statusCode ?? 0, head.headers, reason.message);
      const fail = (reason: Error) => {
        failWith(reason);
        request.destroy(reason);
      };
      const deadline = setTimeout(
        () => fail(ofBody(new Error(`no complete answer within ${this.timeoutMs / 1000} s`))),
        this.timeoutMs,
      );
      const settle = () => {
        clearTimeout(deadline);
        this.inFlight.delete(fail);
      };
      this.inFlight.add(fail);
      let request: http.ClientRequest;
      try {
        request = transport.request(
          {
            protocol: this.origin.protocol,
            // A URL's IPv6 literal keeps its brackets ([::1]), which a lookup takes for a name.
            hostname: this.origin.hostname.replace(/^\[(.*)\]$/, '$1'),
            port: this.origin.port,
            path: pathAndQuery,
            method: 'GET',
            agent: this.agent,
            headers: {
              accept: 'application/json',
              // A page of 500 events with raw is about a megabyte of JSON, a tenth of it gzipped.
              'accept-encoding': 'gzip, deflate, br',
              'user-agent': 'org-events-mirror',
              ...(authorization ? { authorization } : {}),
            },
            timeout: this.timeoutMs,
          },
          (response) => {
            head = response;
            const chunks: Buffer[] = [];
            let received = 0;
            const limit = this.answerLimit;
            response.on('data', (chunk: Buffer) => {
              received += chunk.length;
              // Not held to the end: a source sending without end would fill the memory first.
              if (received > limit) fail(new AnswerTooLargeError(limit));
              else chunks.push(chunk);
            });
            response.on('end', () => {
              let body: string;
              try {
                const bytes = decoded(
                  Buffer.concat(chunks),
                  response.headers['content-encoding'],
                  limit,
                );
                // Bytes that are no UTF-8 marked, not replaced with U+FFFD:
                // a record holding them is refused, never stored altered.
                body = decodeMarkingInvalid(bytes);
              } catch (error) {
                failWith(ofBody(error instanceof Error ? error : new Error(String(error))));
                return;
              }
              settle();
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                body,
                challenges: response.headersDistinct['www-authenticate'] ?? [],
              });
            });
            response.on('error', (error) => failWith(ofBody(error)));
            response.on('aborted', () =>
              failWith(ofBody(new Error('the connection closed mid-response'))),
            );
          },
        );
      } catch (error) {
        // Refused before any connection (a header value it cannot send).
        failWith(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      request.on('timeout', () =>
        request.destroy(new Error(`no answer within ${this.timeoutMs / 1000} s`)),
      );
      request.on('error', (error) => failWith(ofBody(error)));
      request.end();
    });
  }
}

/**
 * A body as sent, undone of its Content-Encoding: asked for (gzip, deflate,
 * br), and sent by some proxies whatever was asked. A body that does not
 * decode (cut short, damaged) fails the request, which is retried as any
 * answer cut short is; an encoding this client does not know fails it with
 * UnknownEncodingError, which retrying cannot fix.
 */
function decoded(body: Buffer, encoding: string | undefined, limit: number): Buffer {
  const name = encoding?.trim().toLowerCase();
  // An empty body is empty however it is said to be encoded (a challenge's 401, a 204).
  if (!name || name === 'identity' || body.length === 0) return body;
  // A megabyte of gzip may hold a gigabyte of spaces: decoding stops at the limit.
  const options = { maxOutputLength: limit };
  try {
    if (name === 'gzip' || name === 'x-gzip') return zlib.gunzipSync(body, options);
    if (name === 'deflate') {
      // Some servers send deflate without its zlib wrapper (RFC 9110 8.4.1.2
      // notes them; browsers read it): a body not opening with a zlib header
      // (method 8, a header check that divides by 31) is read as raw deflate.
      const zlibHeader =
        body.length >= 2 && (body[0]! & 0x0f) === 8 && ((body[0]! << 8) | body[1]!) % 31 === 0;
      return zlibHeader ? zlib.inflateSync(body, options) : zlib.inflateRawSync(body, options);
    }
    if (name === 'br') return zlib.brotliDecompressSync(body, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AnswerTooLargeError(limit);
    }
    throw new Error(`the answer's ${name}-encoded body does not decode (${errorMessage(error)})`);
  }
  throw new UnknownEncodingError(encoding!);
}

/**
 * A quoted-string (RFC 9110 5.6.4): a challenge's values come unescaped from
 * its quoted-pairs (a realm `Acme "events"`), and go back escaped.
 */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

export function headerOf(answer: HttpAnswer, name: string): string | undefined {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
