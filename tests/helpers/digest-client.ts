import { createHash, randomBytes } from 'node:crypto';

/**
 * A hand-rolled HTTP Digest client for tests that need precise control
 * (nonce counts, quoting, stale nonces, wrong uris). Written independently of
 * lib/auth: it parses challenges and computes responses itself, from RFC 7616.
 */

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';

export type Challenge = {
  realm: string;
  nonce: string;
  domain?: string;
  algorithm?: string;
  qop?: string;
  stale?: string;
};

/** Reads `Digest k="v", k=v` (no escapes needed for our server's challenges). */
export function parseChallenge(header: string | null): Challenge {
  if (!header?.startsWith('Digest ')) throw new Error(`not a Digest challenge: ${header}`);
  const params: Record<string, string> = {};
  for (const match of header.slice(7).matchAll(/([a-zA-Z]+)=(?:"([^"]*)"|([^,\s]*))/g)) {
    params[match[1]!.toLowerCase()] = match[2] ?? match[3] ?? '';
  }
  if (params.realm === undefined || !params.nonce)
    throw new Error(`incomplete challenge: ${header}`);
  return params as Challenge;
}

function h(algorithm: DigestAlgorithm, data: string): string {
  return createHash(algorithm.startsWith('MD5') ? 'md5' : 'sha256')
    .update(data)
    .digest('hex');
}

export type AuthorizationOptions = {
  username: string;
  password: string;
  realm: string;
  nonce: string;
  method: string;
  uri: string;
  nc: number;
  cnonce?: string;
  algorithm?: DigestAlgorithm;
  /** Send `qop="auth"` (Python requests) rather than `qop=auth` (curl, Chromium). */
  quoteQop?: boolean;
  /** Send `algorithm="MD5"` rather than `algorithm=MD5`. */
  quoteAlgorithm?: boolean;
  /** Leave out algorithm (it defaults to MD5). */
  omitAlgorithm?: boolean;
  /** Leave out qop, nc and cnonce: the RFC 2069 form. */
  legacyNoQop?: boolean;
  /** Compute the response over this uri instead of the one sent. */
  responseUri?: string;
};

export function authorizationHeader(o: AuthorizationOptions): string {
  const algorithm = o.algorithm ?? 'MD5';
  const cnonce = o.cnonce ?? randomBytes(8).toString('hex');
  const nc = o.nc.toString(16).padStart(8, '0');
  let ha1 = h(algorithm, `${o.username}:${o.realm}:${o.password}`);
  if (algorithm.endsWith('-sess')) ha1 = h(algorithm, `${ha1}:${o.nonce}:${cnonce}`);
  const ha2 = h(algorithm, `${o.method}:${o.responseUri ?? o.uri}`);
  const response = o.legacyNoQop
    ? h(algorithm, `${ha1}:${o.nonce}:${ha2}`)
    : h(algorithm, `${ha1}:${o.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  const parts = [
    `username="${o.username}"`,
    `realm="${o.realm}"`,
    `nonce="${o.nonce}"`,
    `uri="${o.uri}"`,
    `response="${response}"`,
  ];
  if (!o.omitAlgorithm)
    parts.push(o.quoteAlgorithm ? `algorithm="${algorithm}"` : `algorithm=${algorithm}`);
  if (!o.legacyNoQop) {
    parts.push(o.quoteQop ? 'qop="auth"' : 'qop=auth', `nc=${nc}`, `cnonce="${cnonce}"`);
  }
  return `Digest ${parts.join(', ')}`;
}

/**
 * The Authorization header answering one challenge once (nc=1, GET unless
 * `options` says otherwise), as a one-shot client such as curl does.
 */
export function answerChallenge(
  wwwAuthenticate: string | null,
  key: Credentials,
  uri: string,
  options: Partial<AuthorizationOptions> = {},
): string {
  const challenge = parseChallenge(wwwAuthenticate);
  return authorizationHeader({
    username: key.publicKey,
    password: key.privateKey,
    realm: challenge.realm,
    nonce: challenge.nonce,
    method: 'GET',
    uri,
    nc: 1,
    ...options,
  });
}

export type TestResponse = {
  status: number;
  headers: Headers;
  text: string;
  json<T = unknown>(): T;
};

export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: init.headers,
    redirect: 'manual',
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

export type Credentials = { publicKey: string; privateKey: string };

/**
 * Keeps one nonce and counts nc up, like a browser. `request` answers a
 * stale=true challenge by retrying once with the new nonce.
 */
export class DigestClient {
  nonce: string | undefined;
  realm: string | undefined;
  nc = 0;

  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials,
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  /** An unauthenticated request: the server's challenge. */
  async challenge(path = '/api/public/v1.0/orgs'): Promise<Challenge> {
    const res = await send(`${this.baseUrl}${path}`, { headers: this.defaultHeaders });
    if (res.status !== 401) throw new Error(`expected a 401 challenge, got ${res.status}`);
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    this.nonce = challenge.nonce;
    this.realm = challenge.realm;
    this.nc = 0;
    return challenge;
  }

  async request(
    path: string,
    options: Partial<AuthorizationOptions> & { headers?: Record<string, string> } = {},
  ): Promise<TestResponse> {
    if (!this.nonce) await this.challenge(path);
    const attempt = async () => {
      this.nc += 1;
      const method = options.method ?? 'GET';
      const authorization = authorizationHeader({
        username: this.credentials.publicKey,
        password: this.credentials.privateKey,
        realm: this.realm!,
        nonce: this.nonce!,
        method,
        uri: path,
        nc: this.nc,
        ...options,
      });
      return send(`${this.baseUrl}${path}`, {
        method,
        headers: { ...this.defaultHeaders, ...options.headers, authorization },
      });
    };
    let res = await attempt();
    if (res.status === 401 && /stale=true/.test(res.headers.get('www-authenticate') ?? '')) {
      const challenge = parseChallenge(res.headers.get('www-authenticate'));
      this.nonce = challenge.nonce;
      this.nc = 0;
      res = await attempt();
    }
    return res;
  }

  async getJson<T = unknown>(path: string): Promise<T> {
    const res = await this.request(path);
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    return res.json<T>();
  }
}
