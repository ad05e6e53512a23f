import { randomBytes } from 'node:crypto';

/**
 * The dashboard's Content-Security-Policy: a strict, nonce-based one. A
 * script runs only if it carries this response's nonce, or was loaded by one
 * that did ('strict-dynamic': Next's chunks); an injected inline script or
 * `<script src>` has no nonce and is refused. Next puts the nonce on every
 * script it writes (its flight data is inline) when the *request* carries
 * the policy: app-render reads it there (getScriptNonceFromHeaders), which
 * is why the front door (lib/http/front-door.ts) sets the same policy on the
 * request it hands Next and on the response. Pages are rendered per request
 * (app/layout.tsx): a prerendered one would hold no nonce, or a stale one.
 *
 * Besides scripts: styles, images, fetches and form posts from this origin
 * only (inline styles stay allowed: React writes style attributes); no
 * plugins, no <base>; no other site may frame the dashboard (a clickjacking
 * page lays its buttons over ours). 'self' in script-src is for browsers
 * without 'strict-dynamic' (CSP 2), which ignore it otherwise.
 */
export function contentSecurityPolicy(
  nonce: string,
  development = process.env.NODE_ENV === 'development',
): string {
  return [
    "default-src 'self'",
    // `next dev` only: React evaluates code there (its dev tools and
    // error overlay), and the page stays blank without it.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A fresh nonce for one response: 128 random bits, base64 (what a CSP nonce-source takes). */
export function scriptNonce(): string {
  return randomBytes(16).toString('base64');
}
