// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native and server-only drivers stay outside the bundle.
  serverExternalPackages: ['better-sqlite3', 'pg', 'kysely'],
  typedRoutes: false,
};

module.exports = nextConfig;
