import { OBJECT_ID_PATTERN } from './limits';

export { OBJECT_ID_PATTERN };

export function isObjectId(value: string): boolean {
  return OBJECT_ID_PATTERN.test(value);
}

/**
 * The last moment an ObjectId's 32-bit unsigned second holds
 * (2106-02-07T06:28:15Z); the first is the epoch. objectIdAt clamps an
 * earlier second to 0 and wraps a later one.
 */
export const OBJECT_ID_MAX_MILLIS = 0xffff_ffff * 1000;

/**
 * An ObjectId-style id whose leading 4 bytes are the given second, like the
 * real service's ids. `tail` (16 hex digits) makes it deterministic when given.
 */
export function objectIdAt(millis: number, tail?: string): string {
  const seconds = Math.max(0, Math.floor(millis / 1000)) >>> 0;
  const suffix = tail ?? randomHex(8);
  return seconds.toString(16).padStart(8, '0') + suffix.padStart(16, '0').slice(-16);
}

const PROCESS_BYTES = randomHex(5);
let counter = parseInt(randomHex(3), 16);

/**
 * A new id, laid out as MongoDB's ObjectId: the second, 5 random bytes drawn
 * once per process (or page), then a counter from a random start. Ids this
 * process makes in one second thus order as they were made: the ledger lists
 * runs started in one millisecond by id, and with 8 random bytes each two
 * such runs came out in either order. Across processes the random bytes
 * decide, as for any ObjectId.
 */
export function newObjectId(): string {
  counter = (counter + 1) % 0x100_0000;
  return objectIdAt(Date.now(), PROCESS_BYTES + counter.toString(16).padStart(6, '0'));
}

/** The creation second encoded in an ObjectId, in milliseconds. */
export function objectIdTime(id: string): number {
  return parseInt(id.slice(0, 8), 16) * 1000;
}

/** Web Crypto, so ids can be made in the browser and in Node alike. */
function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = '';
  for (const byte of buffer) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
