import { createHash, timingSafeEqual } from 'node:crypto';
import { originForm, splitTarget } from '@/lib/http/request-target';

/**
 * HTTP Digest authentication (RFC 7616, compatible with RFC 2617 clients) as
 * pure functions: parse the Authorization header, compute and verify the
 * response, build the challenge. No I/O here; nonces live in nonce.ts and the
 * policy (which key, which realm, throttling) in authenticate.ts.
 */

export type DigestAlgorithmName = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';

export type DigestCredentials = {
  username: string;
  realm: string;
  nonce: string;
  uri: string;
  /**
   * The uri exactly as written between its quotes, when that differs from
   * `uri` (it held `\\` or `\"`): curl, requests and Go put the request
   * target there verbatim, unescaped, so `?username=a\\b` (a filter's
   * escaped backslash) is their uri as it stands, not `a\b`.
   */
  uriAsWritten?: string;
  /** Lowercase hex. */
  response: string;
  algorithm: DigestAlgorithmName;
  qop: 'auth';
  /** The nonce count as sent (8 hex digits) and its value. */
  nc: string;
  ncValue: number;
  cnonce: string;
};

export type ParsedAuthorization =
  | { scheme: 'none' }
  | { scheme: 'basic' }
  | { scheme: 'other' }
  | { scheme: 'digest'; credentials: DigestCredentials }
  | { scheme: 'digest'; credentials: null; problem: string };

// No length limit of our own: the header carries the request-target as `uri`,
// so a cap here refused correct clients with long filter URLs. The bound is
// Node's (--max-http-header-size / http.createServer's maxHeaderSize), which
// applies before any of this runs; parsing is linear in the header's length.

/** One character of a token (RFC 9110 5.6.2). */
export const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const HEX = /^[0-9a-f]+$/;

/**
 * Splits `name=value, name="quoted, value"` auth-params (RFC 9110 §11.2).
 * Names are case-insensitive; a repeated name makes the header invalid
 * (a client must not send two different `uri`s and let us pick one).
 * Returns null on any syntax error.
 */
export function parseAuthParams(
  input: string,
  asWritten?: Map<string, string>,
): Map<string, string> | null {
  const params = new Map<string, string>();
  let i = 0;
  const n = input.length;
  const skipSpace = () => {
    while (i < n && (input[i] === ' ' || input[i] === '\t')) i++;
  };
  while (i < n) {
    // Leading and empty list elements (",,") are allowed by the list syntax.
    while (i < n && (input[i] === ' ' || input[i] === '\t' || input[i] === ',')) i++;
    if (i >= n) break;
    const nameStart = i;
    while (i < n && TOKEN.test(input[i]!)) i++;
    if (i === nameStart) return null;
    const name = input.slice(nameStart, i).toLowerCase();
    skipSpace();
    if (input[i] !== '=') return null;
    i++;
    skipSpace();
    let value = '';
    const quoteStart = i;
    if (input[i] === '"') {
      i++;
      let closed = false;
      while (i < n) {
        const ch = input[i]!;
        // A quoted-pair (RFC 9110) only before '"' or '\\': other backslashes
        // are the text itself. Clients (curl, requests, Go) put the request
        // target into uri="…" verbatim, unescaped, so a URL holding `\,`
        // (a comma within a filter value) failed its uri check as `,`.
        if (ch === '\\' && (input[i + 1] === '"' || input[i + 1] === '\\')) {
          value += input[i + 1];
          i += 2;
        } else if (ch === '"') {
          i++;
          closed = true;
          break;
        } else {
          value += ch;
          i++;
        }
      }
      if (!closed) return null;
      asWritten?.set(name, input.slice(quoteStart + 1, i - 1));
    } else {
      // Unquoted values should be tokens, but be lenient with '/', '=' or ':'
      // (some clients send an unquoted uri or a base64 nonce): read up to the
      // list separator or whitespace.
      const valueStart = i;
      while (i < n && input[i] !== ',' && input[i] !== ' ' && input[i] !== '\t') i++;
      value = input.slice(valueStart, i);
      if (value === '') return null;
    }
    if (params.has(name)) return null;
    params.set(name, value);
    skipSpace();
    if (i < n && input[i] !== ',') return null;
  }
  return params;
}

const ALGORITHMS: Record<string, DigestAlgorithmName> = {
  md5: 'MD5',
  'md5-sess': 'MD5-sess',
  'sha-256': 'SHA-256',
  'sha-256-sess': 'SHA-256-sess',
};

/** An `algorithm` auth-param's value (case-insensitive; absent means MD5), or undefined if unknown. */
export function digestAlgorithm(value: string | undefined): DigestAlgorithmName | undefined {
  return ALGORITHMS[(value ?? 'MD5').toLowerCase()];
}

/**
 * Reads the Authorization header. Only `qop=auth` responses are accepted:
 * the legacy RFC 2069 form (no qop) carries no nonce count, so a captured
 * request could be replayed for the nonce's whole lifetime; every client that
 * understands our challenge (which offers qop="auth") uses qop anyway.
 * `userhash=true` is refused too: our challenge never offers it.
 */
export function parseAuthorization(header: string | null | undefined): ParsedAuthorization {
  if (header === null || header === undefined || header.trim() === '') return { scheme: 'none' };
  const trimmed = header.trim();
  const space = trimmed.search(/\s/);
  const scheme = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  if (scheme === 'basic') return { scheme: 'basic' };
  if (scheme !== 'digest') return { scheme: 'other' };
  const invalid = (problem: string): ParsedAuthorization => ({
    scheme: 'digest',
    credentials: null,
    problem,
  });
  if (space === -1) return invalid('no parameters');

  const asWritten = new Map<string, string>();
  const params = parseAuthParams(trimmed.slice(space + 1), asWritten);
  if (!params) return invalid('malformed parameters');

  const username = params.get('username');
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  const uri = params.get('uri');
  const response = params.get('response')?.toLowerCase();
  if (!username || realm === undefined || !nonce || !uri || !response) {
    return invalid('missing username, realm, nonce, uri or response');
  }
  if (params.get('userhash')?.toLowerCase() === 'true') return invalid('userhash unsupported');

  const algorithm = digestAlgorithm(params.get('algorithm'));
  if (!algorithm) return invalid('unsupported algorithm');
  const expectedLength = algorithm.startsWith('MD5') ? 32 : 64;
  if (response.length !== expectedLength || !HEX.test(response)) return invalid('bad response');

  const qop = params.get('qop')?.toLowerCase();
  if (qop === undefined) return invalid('qop missing (RFC 2069 responses are not accepted)');
  if (qop !== 'auth') return invalid('unsupported qop');
  const nc = params.get('nc');
  const cnonce = params.get('cnonce');
  if (!nc || !/^[0-9a-fA-F]{8}$/.test(nc)) return invalid('bad nc');
  if (!cnonce) return invalid('missing cnonce');

  return {
    scheme: 'digest',
    credentials: {
      username,
      realm,
      nonce,
      uri,
      ...(asWritten.has('uri') && asWritten.get('uri') !== uri
        ? { uriAsWritten: asWritten.get('uri') }
        : {}),
      response,
      algorithm,
      qop: 'auth',
      nc,
      ncValue: parseInt(nc, 16),
      cnonce,
    },
  };
}

function hashHex(algorithm: DigestAlgorithmName, data: string): string {
  return createHash(algorithm.startsWith('MD5') ? 'md5' : 'sha256')
    .update(data, 'utf8')
    .digest('hex');
}

/**
 * The response a client holding HA1 = H(username:realm:password) must send
 * (RFC 7616 §3.4.1, qop=auth). For the -sess variants HA1 is re-keyed with
 * the nonce and cnonce first (§3.4.2).
 */
export function computeDigestResponse(input: {
  algorithm: DigestAlgorithmName;
  ha1: string;
  nonce: string;
  nc: string;
  cnonce: string;
  qop: 'auth';
  method: string;
  uri: string;
}): string {
  const { algorithm, nonce, nc, cnonce, qop, method, uri } = input;
  const ha1 = algorithm.endsWith('-sess')
    ? hashHex(algorithm, `${input.ha1}:${nonce}:${cnonce}`)
    : input.ha1;
  const ha2 = hashHex(algorithm, `${method}:${uri}`);
  return hashHex(algorithm, `${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`);
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(expected: string, actual: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(actual.toLowerCase(), 'utf8');
  if (a.length !== b.length) {
    // Still spend a comparison so the length mismatch is not a faster path.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/** Checks a client's response against the stored HA1 for its algorithm. */
export function verifyDigestResponse(
  credentials: DigestCredentials,
  method: string,
  ha1: string,
): boolean {
  const expected = computeDigestResponse({
    algorithm: credentials.algorithm,
    ha1,
    nonce: credentials.nonce,
    nc: credentials.nc,
    cnonce: credentials.cnonce,
    qop: credentials.qop,
    method,
    uri: credentials.uri,
  });
  return digestsEqual(expected, credentials.response);
}

/**
 * Whether the digest `uri` names the request being made. The request-target
 * may be given exactly, or in the absolute-URI form; failing that, it matches
 * when it reads the same as the request: the same path segments and the same
 * query pairs in the same order, each percent-decoded (`+` as a space in the
 * query), as the router and the query parser read them. Fetch-based clients
 * (digest-fetch, Node and browser fetch under a Digest wrapper) hash the URL
 * as the caller wrote it while fetch sends it percent-encoded: `q=a b` goes
 * out as `q=a%20b`, `o'brien` as `o%27brien`, `é` as `%C3%A9`, and a
 * `#fragment` not at all. Their response still covers the uri they sent,
 * and a uri naming other parameters, values or paths is refused.
 */
export function digestUriMatches(digestUri: string, requestTarget: string): boolean {
  if (digestUri === requestTarget) return true;
  // Origin form (not `//…`, which would name an authority) or absolute form.
  const origin = digestUri.startsWith('/') && !digestUri.startsWith('//');
  if (!origin && !/^https?:\/\//i.test(digestUri)) return false;
  const target = originForm(digestUri);
  if (target === requestTarget) return true;
  const digestReading = readTarget(target);
  return digestReading !== null && digestReading === readTarget(requestTarget);
}

/**
 * The form of the credentials' uri that names `requestTarget`: the uri as the
 * quoted-pair rule reads it, else as the client wrote it (curl, requests and
 * Go do not escape a `\\` of the URL); null when neither does. The response
 * is checked over the form returned.
 */
export function uriNamingRequest(
  credentials: Pick<DigestCredentials, 'uri' | 'uriAsWritten'>,
  requestTarget: string,
): string | null {
  if (digestUriMatches(credentials.uri, requestTarget)) return credentials.uri;
  const written = credentials.uriAsWritten;
  return written !== undefined && digestUriMatches(written, requestTarget) ? written : null;
}

/**
 * What the server reads from a request-target: its path segments and its
 * query's name/value pairs, decoded (a fragment dropped), as one string to
 * compare; null when a percent-escape does not decode.
 */
function readTarget(target: string): string | null {
  const { path, search } = splitTarget(target);
  const form = (raw: string) => decodeURIComponent(raw.replace(/\+/g, ' '));
  try {
    const segments = path.split('/').map((segment) => decodeURIComponent(segment));
    const pairs = search
      .split('&')
      .filter((pair) => pair !== '')
      .map((pair) => {
        const eq = pair.indexOf('=');
        return eq === -1 ? [form(pair), ''] : [form(pair.slice(0, eq)), form(pair.slice(eq + 1))];
      });
    return JSON.stringify([segments, pairs]);
  } catch {
    return null;
  }
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, (ch) => `\\${ch}`)}"`;
}

/**
 * The challenge exactly as the real service sends it: parameter order
 * realm, domain, nonce, algorithm, qop, stale; algorithm and stale unquoted.
 */
export function buildChallenge(realm: string, nonce: string, stale: boolean): string {
  return `Digest realm=${quote(realm)}, domain="", nonce=${quote(nonce)}, algorithm=MD5, qop="auth", stale=${stale}`;
}
