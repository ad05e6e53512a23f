import 'server-only';
import { canReadOrgEvents, type Principal } from '@/lib/auth/principal';
import { readSession, sessionCookieValue, sessionUseOf } from '@/lib/auth/session';
import type { SavedViewJson, SavedViewState } from '@/lib/client/saved-views';
import { SAVED_VIEW_NAME_MAX } from '@/lib/client/saved-views';
import {
  crossSiteRequest,
  invalidAttribute,
  malformedPath,
  orgNotFound,
  savedViewNotFound,
  unsupportedMediaType,
  userUnauthorized,
} from '@/lib/domain/errors';
import { isObjectId, newObjectId } from '@/lib/domain/object-id';
import { hasControlCharacter } from '@/lib/domain/json-text';
import {
  isSameOriginRequest,
  isSecureRequest,
  readBodyText,
  requestMediaType,
} from '@/lib/http/request';
import { getStore } from '@/lib/store';
import type { EventStore, SavedView } from '@/lib/store/types';
import { errorResponse, failureResponse, NO_STORE } from './responses';

/**
 * The dashboard's saved-views route: the session cookie names the key, and
 * the key needs the same reader role in the organization as for its events.
 * Failures use the service's one error model (lib/domain/errors.ts).
 */

const MAX_BODY_BYTES = 16 * 1024;
const MAX_STATE_CHARS = 8 * 1024;

type Context = { store: EventStore; principal: Principal; orgId: string };

function json(status: number, body: unknown): Response {
  return new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: body === null ? NO_STORE : { 'Content-Type': 'application/json', ...NO_STORE },
  });
}

function toJson(view: SavedView, principal: Principal): SavedViewJson {
  let state: SavedViewState = { query: '' };
  try {
    state = JSON.parse(view.state) as SavedViewState;
  } catch {
    // A stored state is always JSON; an unreadable one opens as the plain list.
  }
  return {
    id: view.id,
    name: view.name,
    shared: view.shared,
    mine: view.ownerKeyId === principal.apiKeyId,
    state,
    created: new Date(view.created).toISOString(),
    updated: new Date(view.updated).toISOString(),
  };
}

/** Runs `work` for a signed-in reader of the org, mapping every failure to the error model. */
export async function withViewsAccess(
  request: Request,
  params: Promise<{ orgId: string; viewId?: string }>,
  work: (context: Context, viewId: string | undefined) => Promise<Response>,
): Promise<Response> {
  try {
    const { orgId, viewId } = await params;
    const path = new URL(request.url).pathname;
    if (!isObjectId(orgId) || (viewId !== undefined && !isObjectId(viewId))) {
      return errorResponse(malformedPath(path));
    }
    if (request.method !== 'GET' && !isSameOriginRequest(request.url, request.headers)) {
      return errorResponse(crossSiteRequest());
    }
    const store = await getStore();
    const principal = await readSession(
      store,
      sessionCookieValue(request.headers.get('cookie'), isSecureRequest(request)),
      Date.now(),
      sessionUseOf(request.headers),
    );
    if (!principal) return errorResponse(userUnauthorized());
    if (!(await store.getOrg(orgId))) return errorResponse(orgNotFound(orgId));
    if (!(await canReadOrgEvents(store, principal, orgId))) {
      return errorResponse(userUnauthorized());
    }
    return await work({ store, principal, orgId }, viewId);
  } catch (error) {
    return failureResponse(error, 'saved views failed');
  }
}

async function readBody(request: Request): Promise<Record<string, unknown>> {
  if (requestMediaType(request.headers) !== 'application/json') {
    throw unsupportedMediaType(['application/json']);
  }
  const text = await readBodyText(request, MAX_BODY_BYTES);
  if (text === null) throw invalidAttribute('body', `must be at most ${MAX_BODY_BYTES} bytes`);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw invalidAttribute('body', 'must be a JSON object');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidAttribute('body', 'must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function readName(value: unknown): string {
  if (typeof value !== 'string' || !value.trim())
    throw invalidAttribute('name', 'must be a non-empty string');
  const name = value.trim();
  if (name.length > SAVED_VIEW_NAME_MAX) {
    throw invalidAttribute('name', `must be at most ${SAVED_VIEW_NAME_MAX} characters`);
  }
  // A name is one line of a menu; U+0000 also cannot be stored by PostgreSQL.
  if (hasControlCharacter(name)) {
    throw invalidAttribute('name', 'must not contain control characters');
  }
  // Half a UTF-16 pair is no character: stored, it read back as U+FFFD.
  if (/\p{Cs}/u.test(name)) {
    throw invalidAttribute('name', 'must be valid Unicode text (a lone surrogate is not)');
  }
  return name;
}

function readShared(value: unknown): boolean {
  if (typeof value !== 'boolean') throw invalidAttribute('shared', 'must be true or false');
  return value;
}

function readState(value: unknown): string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidAttribute('state', 'must be an object');
  }
  const state = value as Record<string, unknown>;
  if (typeof state.query !== 'string') throw invalidAttribute('state.query', 'must be a string');
  const text = JSON.stringify(state);
  if (text.length > MAX_STATE_CHARS) {
    throw invalidAttribute('state', `must be at most ${MAX_STATE_CHARS} characters as JSON`);
  }
  return text;
}

// GET /api/orgs/{orgId}/views – the key's own views and the org's shared ones.
export async function listViews({ store, principal, orgId }: Context): Promise<Response> {
  const views = await store.listSavedViews(orgId, principal.apiKeyId);
  return json(200, {
    results: views.map((view) => toJson(view, principal)),
    totalCount: views.length,
  });
}

// POST /api/orgs/{orgId}/views – save a view: {name, shared, state}.
export async function createView(
  { store, principal, orgId }: Context,
  request: Request,
): Promise<Response> {
  const body = await readBody(request);
  const now = Date.now();
  const view = await store.createSavedView({
    id: newObjectId(),
    orgId,
    ownerKeyId: principal.apiKeyId,
    name: readName(body.name),
    shared: body.shared === undefined ? false : readShared(body.shared),
    state: readState(body.state),
    created: now,
    updated: now,
  });
  return json(201, toJson(view, principal));
}

// PATCH /api/orgs/{orgId}/views/{viewId} – rename, re-share or overwrite (owner only).
export async function updateView(
  { store, principal, orgId }: Context,
  viewId: string,
  request: Request,
): Promise<Response> {
  const body = await readBody(request);
  const view = await store.updateSavedView(
    orgId,
    viewId,
    principal.apiKeyId,
    {
      ...(body.name !== undefined && { name: readName(body.name) }),
      ...(body.shared !== undefined && { shared: readShared(body.shared) }),
      ...(body.state !== undefined && { state: readState(body.state) }),
    },
    Date.now(),
  );
  if (!view) throw savedViewNotFound(viewId);
  return json(200, toJson(view, principal));
}

// DELETE /api/orgs/{orgId}/views/{viewId} – delete (owner only).
export async function deleteView(
  { store, principal, orgId }: Context,
  viewId: string,
): Promise<Response> {
  if (!(await store.deleteSavedView(orgId, viewId, principal.apiKeyId))) {
    throw savedViewNotFound(viewId);
  }
  return json(204, null);
}
