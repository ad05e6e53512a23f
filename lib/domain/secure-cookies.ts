/**
 * Whether a browser keeps a `Secure` cookie that a plain-http page of this
 * host is sent: only where it takes the host itself for secure, loopback
 * (localhost and its subdomains, 127.0.0.0/8, [::1]: "potentially
 * trustworthy" in Chromium and Firefox; localhost and 127.0.0.1 checked in
 * Chromium). On any other host it drops the cookie without a word, and the
 * dashboard's session cookie is Secure whenever PUBLIC_BASE_URL is https.
 * Shared by the sign-in route and the sign-in form, which both warn.
 */
export function keepsSecureCookiesOverHttp(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127(?:\.\d{1,3}){3}$/.test(host) ||
    host === '[::1]'
  );
}
