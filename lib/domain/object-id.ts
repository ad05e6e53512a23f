import { OBJECT_ID_PATTERN } from './limits';

export { OBJECT_ID_PATTERN };

export function isObjectId(value: string): boolean {
  return OBJECT_ID_PATTERN.test(value);
}

/**
 * An ObjectId-style id whose leading 4 bytes are the given second, like the
 * real service's ids. `tail` (16 hex digits) makes it deterministic when given.
 */
export function objectIdAt(millis: number, tail?: string): string {
  const seconds = Math.max(0, Math.floor(millis / 1000)) >>> 0;
  const suffix = tail ?? randomHex(8);
  return seconds.toString(16).padStart(8, '0') + suffix.padStart(16, '0').slice(-16);
}

export function newObjectId(): string {
  return objectIdAt(Date.now());
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
