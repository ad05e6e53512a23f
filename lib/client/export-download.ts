import { activityHeaders } from './activity';
import { ApiRequestError, parseRetryAfter, refusalOf } from './api-client';
import { DASHBOARD_CLIENT_HEADER, DASHBOARD_CLIENT_VALUE } from '@/lib/domain/limits';
import type { ExportFormat } from '@/lib/domain/query';

const HEADERS = { [DASHBOARD_CLIENT_HEADER]: DASHBOARD_CLIENT_VALUE };

/** The file name the server gave (Content-Disposition), or a plain fallback. */
function fileNameOf(response: Response, format: ExportFormat): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '');
  return match?.[1] ?? `events.${format}`;
}

/** What an export would hold now, and the name it will be saved under. */
export type ExportPreview = { totalCount: number; fileName: string };

/**
 * The export's headers without its body (HEAD): how many events it holds
 * now and its file name. A refusal (session ended, a filter the API
 * rejects) throws ApiRequestError with the API's own message, read from a
 * GET of the same URL: a HEAD answer has no body, and an error body is small.
 */
export async function previewExport(
  path: string,
  format: ExportFormat,
  signal?: AbortSignal,
): Promise<ExportPreview> {
  const init = {
    headers: { ...HEADERS, ...activityHeaders() },
    credentials: 'same-origin',
    signal,
  } as const;
  const response = await fetch(path, { ...init, method: 'HEAD' });
  if (!response.ok) {
    const again = await fetch(path, init);
    if (!again.ok) throw await refusalOf(again);
    // Allowed meanwhile (an export slot freed, after 429 TOO_MANY_EXPORTS):
    // that answer is the export itself, not a message to read whole.
    await again.body?.cancel();
    const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
    throw new ApiRequestError(
      response.status,
      {
        detail: `The server answered ${response.status}${retryAfter === null ? '' : `; retry in ${retryAfter} seconds`}.`,
      },
      retryAfter,
    );
  }
  return {
    totalCount: Number(response.headers.get('X-Total-Count') ?? '0'),
    fileName: fileNameOf(response, format),
  };
}

/**
 * Hands the export to the browser's own download manager: a link to the API
 * URL, authenticated by the session cookie (same origin), so the browser
 * writes the body to disk as it arrives: the page never holds the file, and
 * memory stays flat whatever the size. The browser's downloads show the
 * progress and cancel it; cancelling closes the connection, which ends the
 * query on the server.
 */
export function startBrowserDownload(path: string, fileName: string): void {
  const link = document.createElement('a');
  link.href = path;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}
