import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { recordRequest } from '@/lib/ops/access-log';
import { requestIdFor } from '@/lib/ops/request-id';

/**
 * A request Node's HTTP parser refused before any handler saw it: headers
 * over the limit (431), a malformed request (400), one too slow to arrive
 * (408). Answered as Node answers it by default, and logged and counted as
 * every other request is: without this they left no trace at all.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // The client left: nothing to answer, nothing it asked.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 408
        : 400;
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
  recordRequest({
    requestId: requestIdFor(undefined),
    method: '-',
    route: 'unparsed',
    status,
    durationMs: 0,
    clientAddress: socket.remoteAddress,
  });
}
