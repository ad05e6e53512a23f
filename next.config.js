// @ts-check
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
};

module.exports = nextConfig;
