// @ts-check

/**
 * Every page and dashboard route (the API under /api/public/ is answered
 * without Next, with the real service's headers: lib/api/headers.ts). No
 * other site may frame the dashboard (a clickjacking page lays its buttons
 * over ours); no type is sniffed; and a URL, which holds the filters
 * (usernames, addresses), is never sent to another site as a Referer. The
 * Content-Security-Policy is not here: it names a nonce of each response,
 * which the front door sets (lib/http/content-security-policy.ts).
 */
const SECURITY_HEADERS = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and server-only drivers stay outside the bundle.
  serverExternalPackages: ['better-sqlite3', 'pg', 'kysely'],
  typedRoutes: false,
  // forbidden(): an organization the key cannot read is answered 403 with the
  // no-access page (lib/dashboard/org-access.ts); Next has no other way for
  // a page to set its status. Experimental in Next 16, covered by e2e/auth.spec.ts.
  experimental: { authInterrupts: true },
  async headers() {
    return [{ source: '/:path((?!api/public/).*)', headers: SECURITY_HEADERS }];
  },
};

module.exports = nextConfig;
