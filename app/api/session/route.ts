import { signIn, signOut } from '@/lib/auth/dashboard-session';
import { sessionCookieValue, sessionCookieValues } from '@/lib/auth/session';
import { clientAddress, lastForwardedFor } from '@/lib/http/client-address';
import {
  httpsOriginForSignIn,
  isSameOriginRequest,
  isSecureRequest,
  readBodyText,
  requestMediaType,
  safeNextPath,
} from '@/lib/http/request';
import { PUBLIC_KEY_PATTERN } from '@/lib/domain/limits';
import { crossSiteRequest, httpsRequired, unsupportedMediaType } from '@/lib/domain/errors';
import { errorResponse, failureResponse, NO_STORE, refuseMethod } from '@/lib/dashboard/responses';
import { getStore } from '@/lib/store';
import { wireFactsFromHeaders } from '@/lib/http/front-door';
import { getLogger } from '@/lib/ops/log';

/**
 * POST /api/session – sign in to the dashboard with an API key (JSON, or a
 * plain form post without JavaScript); sets the sealed session cookie.
 * DELETE /api/session – sign out: the session is revoked on every instance
 * and the cookie cleared. `?everywhere=true` ends every session of the same
 * key (401 USER_UNAUTHORIZED without a live session to name it).
 */

export async function POST(request: Request): Promise<Response> {
  try {
    return await signInRoute(request);
  } catch (error) {
    return failureResponse(error, 'sign-in failed');
  }
}

export async function DELETE(request: Request): Promise<Response> {
  try {
    return await signOutRoute(request);
  } catch (error) {
    return failureResponse(error, 'sign-out failed');
  }
}

async function signInRoute(request: Request): Promise<Response> {
  const mediaType = requestMediaType(request.headers);
  const isForm = mediaType === FORM_MEDIA_TYPE;
  const secure = isSecureRequest(request);
  // A plain-http page of this host while the cookie is Secure: refused
  // before the key is checked, since the browser would drop the cookie,
  // and told what to do about it, which isSameOriginRequest (that refuses
  // such a page off loopback too) would not say.
  const httpsOrigin = httpsOriginForSignIn(request.url, request.headers, secure);
  // Another site's page is told it is one first, whatever it sent: not to
  // open this service over https (httpsOriginForSignIn is null for it), nor
  // which media type to send.
  if (!httpsOrigin && !isSameOriginRequest(request.url, request.headers)) {
    return errorResponse(crossSiteRequest());
  }
  if (httpsOrigin) {
    if (!isForm) return errorResponse(httpsRequired(httpsOrigin));
    const next = safeNextPath((await readFields(request, isForm)).next);
    return new Response(null, {
      status: 303,
      headers: { Location: formErrorLocation('HTTPS_REQUIRED', next), ...NO_STORE },
    });
  }
  // JSON from the form's script, or the form itself without JavaScript;
  // nothing else is read as either (a text/plain post needs no preflight).
  if (mediaType !== 'application/json' && !isForm) {
    return errorResponse(unsupportedMediaType(['application/json', FORM_MEDIA_TYPE]));
  }
  const fields = await readFields(request, isForm);
  const next = safeNextPath(fields.next);
  const remoteAddress = clientAddress({
    headers: request.headers,
    remoteAddress: lastForwardedFor(request.headers),
  });
  const outcome = await signIn(await getStore(), {
    publicKey: fields.publicKey,
    privateKey: fields.privateKey,
    remoteAddress,
    secure,
  });
  if (!outcome.ok) logRefusedSignIn(request, fields.publicKey, remoteAddress, outcome.error.code);

  if (isForm) {
    // Without JavaScript: back to the page asked for, or to the form with the reason.
    const location = outcome.ok ? next : formErrorLocation(outcome.error.code, next);
    const headers = new Headers({ Location: location, ...NO_STORE });
    if (outcome.ok) headers.append('Set-Cookie', outcome.cookie);
    return new Response(null, { status: 303, headers });
  }

  if (!outcome.ok) return errorResponse(outcome.error);
  const headers = new Headers({ 'Content-Type': 'application/json', ...NO_STORE });
  headers.append('Set-Cookie', outcome.cookie);
  return new Response(JSON.stringify({ publicKey: outcome.principal.publicKey, next }), {
    status: 200,
    headers,
  });
}

async function signOutRoute(request: Request): Promise<Response> {
  const secure = isSecureRequest(request);
  const cookie = request.headers.get('cookie');
  // The session read names the key for `everywhere`; every other one sent
  // (over HTTPS an unprefixed one too, never read there) is ended as well.
  const sealed = sessionCookieValue(cookie, secure);
  const alsoSent = sessionCookieValues(cookie).filter((value) => value !== sealed);
  const outcome = await signOut(await getStore(), {
    sealed,
    alsoSent,
    everywhere: new URL(request.url).searchParams.get('everywhere') === 'true',
    secure,
  });
  if (!outcome.ok) return errorResponse(outcome.error, outcome.cookies);
  const headers = new Headers(NO_STORE);
  for (const cookie of outcome.cookies) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 204, headers });
}

/** The sign-in form again, with the reason a no-JavaScript post was refused. */
function formErrorLocation(code: string, next: string): string {
  return `/sign-in?error=${encodeURIComponent(code)}&next=${encodeURIComponent(next)}`;
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** Sign-in bodies are tiny; anything large or malformed reads as empty fields (a 400). */
const MAX_BODY_BYTES = 8 * 1024;

async function readFields(request: Request, isForm: boolean): Promise<Record<string, unknown>> {
  try {
    const text = await readBodyText(request, MAX_BODY_BYTES);
    if (!text) return {};
    if (isForm) return Object.fromEntries(new URLSearchParams(text));
    const body: unknown = JSON.parse(text);
    return body && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

// GET, PUT, PATCH /api/session – a JSON 405 naming POST and DELETE
const refused = refuseMethod(['POST', 'DELETE']);
export { refused as GET, refused as PUT, refused as PATCH, refused as OPTIONS };

/**
 * A refused sign-in in the log, as the API logs refused Digest attempts
 * (`auth failure`, `lockout`): the guard's line for this request only says
 * 401, so a guesser at the dashboard went unseen. The key is named only when
 * it has a public key's shape: a private key typed in the wrong field must
 * never reach a log.
 */
function logRefusedSignIn(
  request: Request,
  publicKey: unknown,
  address: string | undefined,
  code: string,
): void {
  if (code !== 'INVALID_CREDENTIALS' && code !== 'RATE_LIMITED') return;
  const typed = typeof publicKey === 'string' ? publicKey.trim() : '';
  getLogger().warn(
    {
      requestId: wireFactsFromHeaders(request.headers)?.requestId,
      route: 'signIn',
      errorCode: code,
      ...(PUBLIC_KEY_PATTERN.test(typed) ? { publicKey: typed } : {}),
      clientAddress: address,
    },
    code === 'RATE_LIMITED' ? 'lockout' : 'auth failure',
  );
}
