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
  // The client left, or a response on this connection is already under way
  // (a bad request pipelined after a good one): a status line now would land
  // inside that response. Node's own handler closes the socket then too.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // Node's choices: headers too large, a chunk extension too large, too slow, else malformed.
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? 413
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
