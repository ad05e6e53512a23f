import { ApiRequestError, parseRetryAfter, type ApiErrorBody } from './api-client';
import { type EventsListParams, apiListPath } from './url-state';
import { DASHBOARD_CLIENT_HEADER, DASHBOARD_CLIENT_VALUE } from '@/lib/domain/limits';
import type { ExportFormat } from '@/lib/domain/query';

/** The list's own paging parameters: everything else in its query is a filter. */
const PAGING = new Set(['pageNum', 'itemsPerPage', 'includeCount']);

/**
 * The export of exactly the list's filters: the list's API query (the one
 * URL -> API mapping, apiListPath) without its paging, at /events/export,
 * so a filter the list learns is exported the same way without a second
 * mapping to keep in step.
 */
export function apiExportPath(
  params: EventsListParams,
  options: { format: ExportFormat; includeRaw: boolean },
  now: number = Date.now(),
): string {
  const list = apiListPath(params, now);
  const [path, query = ''] = list.split('?', 2) as [string, string?];
  const pairs = query
    .split('&')
    .filter((pair) => pair !== '' && !PAGING.has(pair.slice(0, pair.indexOf('='))));
  pairs.push(`format=${options.format}`);
  if (options.includeRaw) pairs.push('includeRaw=true');
  return `${path}/export?${pairs.join('&')}`;
}

const HEADERS = { [DASHBOARD_CLIENT_HEADER]: DASHBOARD_CLIENT_VALUE };

async function refusal(response: Response): Promise<ApiRequestError> {
  let body: ApiErrorBody | null = null;
  try {
    body = (await response.json()) as ApiErrorBody;
  } catch {
    body = null;
  }
  return new ApiRequestError(
    response.status,
    body,
    parseRetryAfter(response.headers.get('Retry-After')),
  );
}

/** How many events an export would hold now (HEAD: the count, no body). */
export async function exportCount(path: string, signal?: AbortSignal): Promise<number> {
  const response = await fetch(path, {
    method: 'HEAD',
    headers: HEADERS,
    credentials: 'same-origin',
    signal,
  });
  if (!response.ok) throw new ApiRequestError(response.status, null);
  return Number(response.headers.get('X-Total-Count') ?? '0');
}

export type ExportProgress = { totalCount: number; bytes: number };

/** The file name the server gave (Content-Disposition), or a plain fallback. */
function fileNameOf(response: Response, format: ExportFormat): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '');
  return match?.[1] ?? `events.${format}`;
}

/**
 * Reads a whole export (abortable), reporting progress, and returns it as a
 * file to save. The browser holds the file until it is saved: for very
 * large sets the CLI's `events export` streams to disk instead.
 */
export async function downloadExport(
  path: string,
  format: ExportFormat,
  onProgress: (progress: ExportProgress) => void,
  signal: AbortSignal,
): Promise<{ file: File; totalCount: number }> {
  const response = await fetch(path, { headers: HEADERS, credentials: 'same-origin', signal });
  if (!response.ok || !response.body) throw await refusal(response);
  const totalCount = Number(response.headers.get('X-Total-Count') ?? '0');
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let bytes = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    bytes += value.length;
    onProgress({ totalCount, bytes });
  }
  const type = response.headers.get('Content-Type') ?? 'application/octet-stream';
  return { file: new File(parts, fileNameOf(response, format), { type }), totalCount };
}
