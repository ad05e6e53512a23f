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
        [`X-${vendor}-Service-Version`, `gitHash=${gitHash}; versionString=${version}`],
      ],
    };
  }
  return cached.headers;
}
