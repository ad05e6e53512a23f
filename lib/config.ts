import { z } from 'zod';
import { VARIANTS } from '@/lib/domain/catalog';

/**
 * Runtime configuration, read once from the environment and validated.
 * Every knob the README documents lives here; nothing else reads process.env.
 */
const configSchema = z.object({
  DATABASE_URL: z.string().min(1).default('file:./data/org-events.db'),
  EVENTS_VARIANT: z.enum(VARIANTS).default('hosted'),
  DIGEST_REALM: z.string().min(1).default('MMS Public API'),
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  SERVICE_VENDOR: z
    .string()
    .regex(/^[A-Za-z0-9]+$/, 'SERVICE_VENDOR must be alphanumeric')
    .default('MongoDB'),
  NONCE_TTL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(300),
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(8 * 3600),
  ORG_EVENTS_SECRET: z.string().min(32).optional(),
  TRUST_PROXY: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});

export type Config = z.infer<typeof configSchema>;
export type { Variant } from '@/lib/domain/catalog';

let cached: Config | undefined;

export function getConfig(): Config {
  if (!cached) {
    const parsed = configSchema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ');
      throw new Error(`Invalid configuration: ${problems}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** Tests and the CLI override configuration without touching process.env. */
export function setConfigForTesting(overrides: Partial<Config>): void {
  cached = { ...getConfig(), ...overrides };
}
