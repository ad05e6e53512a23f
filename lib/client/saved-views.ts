import { queryOptions } from '@tanstack/react-query';
import { DASHBOARD_CLIENT_HEADER, DASHBOARD_CLIENT_VALUE } from '@/lib/domain/limits';
import { activityHeaders } from './activity';
import { ApiRequestError, type ApiErrorBody, fetchApi } from './api-client';
import { sendToSignInOnExpiredSession } from './query-client';

/**
 * Saved views as the dashboard route (`/api/orgs/{orgId}/views`) speaks them:
 * a name, shared with the organization or not, and the view's state (the
 * page's query string without page or open event, plus the column choice).
 */

export type SavedViewState = {
  /** The events page's query string (no leading '?'), without page and event. */
  query: string;
  columns?: { order: string[]; hidden: string[] };
  density?: 'comfortable' | 'compact';
};

export type SavedViewJson = {
  id: string;
  name: string;
  shared: boolean;
  /** Saved by the signed-in key (only it may rename or delete the view). */
  mine: boolean;
  state: SavedViewState;
  created: string;
  updated: string;
};

export type SavedViewList = { results: SavedViewJson[]; totalCount: number };

export const SAVED_VIEW_NAME_MAX = 80;

export function savedViewsPath(orgId: string, viewId?: string): string {
  const base = `/api/orgs/${encodeURIComponent(orgId)}/views`;
  return viewId ? `${base}/${encodeURIComponent(viewId)}` : base;
}

export function savedViewsQueryKey(orgId: string) {
  return ['orgs', orgId, 'views'] as const;
}

export function savedViewsQueryOptions(orgId: string) {
  return queryOptions({
    queryKey: savedViewsQueryKey(orgId),
    queryFn: ({ signal }) => fetchApi<SavedViewList>(savedViewsPath(orgId), signal),
    staleTime: 10_000,
  });
}

/** POST / PATCH / DELETE on the views route; throws ApiRequestError on failure. */
export async function sendSavedView<T>(
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T | null> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        Accept: 'application/json',
        [DASHBOARD_CLIENT_HEADER]: DASHBOARD_CLIENT_VALUE,
        ...activityHeaders(),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiRequestError(0, { detail: 'The server could not be reached.' });
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) {
    const error = new ApiRequestError(
      response.status,
      parsed && typeof parsed === 'object' ? (parsed as ApiErrorBody) : null,
    );
    // An ended session signs in again and comes back, as a query's 401 does,
    // rather than calling the user "not authorized" to save their own view.
    sendToSignInOnExpiredSession(error);
    throw error;
  }
  return parsed as T | null;
}
