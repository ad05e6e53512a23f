import { getConfig } from '@/lib/config';
import { getBuildInfo } from './build-info';

/**
 * Headers of every application response (success and application errors),
 * as the real service sends them. Date, Content-Length and Connection are
 * the transport's business. Computed once: vendor and build do not change.
 */
let cached: { vendor: string; headers: readonly [string, string][] } | undefined;

export function serviceHeaders(): readonly [string, string][] {
  const vendor = getConfig().SERVICE_VENDOR;
  if (cached?.vendor !== vendor) {
    const { gitHash, version } = getBuildInfo();
    cached = {
      vendor,
      headers: [
        ['Vary', 'Accept-Encoding'],
        ['Content-Type', 'application/json'],
        ['Strict-Transport-Security', 'max-age=300'],
        // The hosted service's own (recorded): a JSON or CSV body is never
        // sniffed as a page, framed, or left with the URL as a Referer.
        ['X-Content-Type-Options', 'nosniff'],
        ['X-Frame-Options', 'DENY'],
        ['Referrer-Policy', 'strict-origin-when-cross-origin'],
        [`X-${vendor}-Service-Version`, `gitHash=${gitHash}; versionString=${version}`],
      ],
    };
  }
  return cached.headers;
}
