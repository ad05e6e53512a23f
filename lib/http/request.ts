import { clientAddress as authClientAddress } from '@/lib/auth/authenticate';

type HeaderReader = { get(name: string): string | null };

/**
 * The caller's address for throttling, chosen as the API's own routes choose
 * it. A route handler cannot see the socket; Next puts the peer address in
 * X-Forwarded-For when the client sent none, so its last entry is the best
 * address there is (and, with TRUST_PROXY, the one our proxy appended).
 */
export function clientAddress(headers: HeaderReader): string | undefined {
  const last = headers.get('x-forwarded-for')?.split(',').pop()?.trim() || undefined;
  const address = authClientAddress({ headers, remoteAddress: last });
  return address === 'unknown' ? undefined : address;
}

/** Reads a request body as text, refusing anything larger than `maxBytes`. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string | null> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
