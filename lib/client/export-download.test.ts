import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ApiRequestError } from './api-client';
import { previewExport } from './export-download';

test("a refused HEAD whose GET is allowed meanwhile (an export slot freed) is reported from the HEAD, the export's body not read", async () => {
  // Before, the GET's answer, an export of any size, was read whole as the error's body.
  let streamed = 0;
  let bodyClosed = false;
  const server = http.createServer((req, res) => {
    if (req.method === 'HEAD') {
      res.writeHead(429, { 'Retry-After': '5' }).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const more = () => {
      while (streamed < 512 * 1024 * 1024 && res.write(chunk)) streamed += chunk.length;
    };
    res.on('drain', more);
    res.on('close', () => (bodyClosed = true));
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await assert.rejects(
      previewExport(`http://127.0.0.1:${port}/export`, 'ndjson'),
      (error: unknown) =>
        error instanceof ApiRequestError &&
        error.status === 429 &&
        error.retryAfterSeconds === 5 &&
        error.message === 'The server answered 429; retry in 5 seconds.',
    );
    for (let i = 0; i < 100 && !bodyClosed; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(bodyClosed, 'the export connection was closed');
    assert.ok(streamed < 64 * 1024 * 1024, `${streamed} bytes sent before the client stopped`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
