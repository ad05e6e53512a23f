import * as z from 'zod';
import { VARIANTS } from '@/lib/domain/catalog';
import { MAX_RECORD_BYTES_LIMIT } from '@/lib/domain/limits';
import {
  DatabaseUrlError,
  parseDatabaseUrl,
  PERCENT_PROBLEM,
  urlSyntaxProblem,
} from '@/lib/store/database-url';

/**
 * Runtime configuration, read once from the environment and validated.
 * Every variable of the README's Configuration table lives here but PORT and
 * HOSTNAME, which server.ts reads alone; the CLI reads its own DEBUG and
 * MIRROR_PRIVATE_KEY.
 */
/** PostgreSQL connections per process: instances x this must fit under the server's max_connections (100 by default). */
export const DEFAULT_POOL_SIZE = 10;

/**
 * A whole number from the environment, written in decimal digits alone:
 * z.coerce.number() read `0x10` as 16, `1e3` as 1000, ` 60 ` as 60 and
 * `0b1` as 1, values nobody meant as written.
 */
function wholeNumber(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, `must be a whole number written in digits alone, from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

const configSchema = z.object({
  // Checked here, so a URL of no supported form (postgress://, mysql://) is
  // refused at start instead of opening a new SQLite file named after it.
  DATABASE_URL: z
    .string()
    .min(1)
    .superRefine((url, ctx) => {
      try {
        parseDatabaseUrl(url);
      } catch (error) {
        if (!(error instanceof DatabaseUrlError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
      }
    })
    .default('file:./data/org-events.db'),
  EVENTS_VARIANT: z.enum(VARIANTS).default('hosted'),
  // Sent in every challenge's WWW-Authenticate header and hashed into every
  // HA1: a character a header cannot carry (日本) made each challenge throw,
  // every unauthenticated request a 500; a blank one names nothing.
  DIGEST_REALM: z
    .string()
    .regex(
      /^[\x20-\x7e]*[\x21-\x7e][\x20-\x7e]*$/,
      'DIGEST_REALM must be printable ASCII (letters, digits, spaces, punctuation) and not blank',
    )
    .default('MMS Public API'),
  // http(s) and nothing after the path: links are this plus their path, so
  // `events.example.com:443` (a valid URL, of scheme `events.example.com`)
  // or a `?query` made every link in every response a broken one.
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .regex(
      /^https?:\/\/[^?#]+$/i,
      'PUBLIC_BASE_URL must be an http:// or https:// URL without ?query or #fragment, such as https://events.example.com',
    )
    // Every link of every answer starts with it: a user:password in it went out to every client.
    .refine((url) => {
      const { username, password } = new URL(url);
      return username === '' && password === '';
    }, 'PUBLIC_BASE_URL must not carry a user name or password (user:password@)')
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  SERVICE_VENDOR: z
    .string()
    .regex(/^[A-Za-z0-9]+$/, 'SERVICE_VENDOR must be alphanumeric')
    .default('MongoDB'),
  NONCE_TTL_SECONDS: wholeNumber(5, 86_400).default(300),
  SESSION_TTL_SECONDS: wholeNumber(60, 7 * 86_400).default(8 * 3600),
  /**
   * How long a dashboard session may go without activity (a page load, an API
   * call the user made) before it is refused; 0 turns the idle timeout off.
   * At least 10 s, so a test can wait one out; SESSION_TTL_SECONDS still
   * ends every session, however active (lib/auth/session-activity.ts).
   */
  SESSION_IDLE_SECONDS: wholeNumber(0, 7 * 86_400)
    .refine((seconds) => seconds === 0 || seconds >= 10, {
      message: 'SESSION_IDLE_SECONDS must be 0 (no idle timeout) or at least 10',
    })
    .default(30 * 60),
  ORG_EVENTS_SECRET: z.string().min(32).optional(),
  /** Only for `keys rehash` after a secret rotation: the secret the HA1 values were sealed with. */
  ORG_EVENTS_PREVIOUS_SECRET: z.string().min(32).optional(),
  /**
   * redis:// or rediss:// URL. When set, the Digest nonce counts, the sign-in
   * throttle and session revocations live there, shared by every instance;
   * unset, each process keeps its own (one instance).
   */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
    .superRefine((url, ctx) => {
      const problem = redisUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  TRUST_PROXY: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /**
   * PostgreSQL: the connections each process keeps at most. Every instance
   * (and every CLI command) opens its own pool, so instances x this must
   * stay under the server's max_connections. At least 2: an export's cursor
   * holds one while other requests go on. Unset: 10 (lib/store/postgres.ts).
   */
  DATABASE_POOL_SIZE: wholeNumber(2, 1000).optional(),
  /**
   * PostgreSQL: how long one query may run before it is cancelled on the
   * server (lib/store/postgres-deadline.ts). Under a proxy's own timeout,
   * so a request it gave up on does not go on working. Unset: 90.
   */
  DATABASE_QUERY_TIMEOUT_SECONDS: wholeNumber(1, 86_400).optional(),
  /**
   * At start, how long the server waits for a database that cannot answer
   * yet (refused, starting up, out of connections), trying again with a
   * back-off, before it gives up and exits 1 (0: at once). A database
   * started beside the server (compose without depends_on, a Kubernetes
   * pod, a host rebooting) is then met, not raced.
   */
  DATABASE_WAIT_SECONDS: wholeNumber(0, 86_400).default(60),
  /** pino's level for the server's JSON log (one line per request at info). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Bearer token for GET /metrics; unset, /metrics answers 404 (metrics are off). */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /**
   * Exports one process streams at once through the API: each holds a
   * database snapshot (on PostgreSQL, one of the pool's connections) until
   * read out; one more is answered 429 TOO_MANY_EXPORTS. Unset: 4, and
   * never more than DATABASE_POOL_SIZE less 2 (exportLimit in lib/api/export.ts).
   */
  EXPORT_MAX_CONCURRENT: wholeNumber(1, 1000).optional(),
  /**
   * An export whose client has taken nothing of it for this long (a chunk
   * is up to 500 events, about a megabyte with raw) is ended, its snapshot
   * released: 300 s lets a client at 4 KB/s through.
   */
  EXPORT_IDLE_SECONDS: wholeNumber(1, 86_400).default(300),
  /** The longest record `import` accepts, in bytes: a longer one is reported, not read into memory. */
  IMPORT_MAX_RECORD_BYTES: wholeNumber(1024, MAX_RECORD_BYTES_LIMIT).default(1 << 20),
  /** PEM files: when both are set, server.ts listens with HTTPS itself. */
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  /**
   * What `npm start` serves: `all` (the API, the dashboard in Next's worker
   * thread, the probes) or `api` (the API and the probes, without starting
   * Next at all: less memory, a quicker start, for instances behind a
   * proxy's /api/public/ route).
   */
  SERVE: z.enum(['all', 'api']).default('all'),
  /**
   * On SIGTERM/SIGINT, how long the server keeps accepting requests with
   * /readyz answering 503 before it stops accepting (0: stop at once), so a
   * load balancer polling /readyz takes it out of rotation first.
   */
  SHUTDOWN_DRAIN_SECONDS: wholeNumber(0, 3600).default(0),
});

/**
 * What keeps ioredis from reading a redis(s):// URL, as it reads it
 * (parseURL: new URL, the user name and password percent-decoded, the path
 * the database number), in words that quote none of it: the password may
 * be anywhere in a malformed URL. A bad port or escape ended the start with
 * a bare 'Invalid URL' or 'URI malformed'; a path of no number crashed the
 * server once it was up (SELECT NaN, refused, unhandled).
 */
function redisUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return urlSyntaxProblem(url);
  }
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
  } catch {
    return PERCENT_PROBLEM;
  }
  if (!/^\/?(\d+)?$/.test(parsed.pathname)) {
    return 'its path must be a database number, such as /0, or nothing';
  }
  return undefined;
}

export type Config = z.infer<typeof configSchema>;
export type { Variant } from '@/lib/domain/catalog';

let cached: Config | undefined;

/** The environment's configuration is invalid: what to fix is in the message. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** The configuration an environment gives, or a ConfigError naming every problem. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // `NAME=` (as compose files and shells leave it) means unset, not an invalid value.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = configSchema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}

/** Tests and the CLI override configuration without touching process.env. */
export function setConfigForTesting(overrides: Partial<Config>): void {
  cached = { ...getConfig(), ...overrides };
}
