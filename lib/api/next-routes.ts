import { handleNextRequest } from './next-adapter';

/**
 * The method exports every API route file re-exports: all of them go to the
 * one lib/api handler (shared with server.ts's fast path), so a non-GET
 * request gets the API's own JSON 405 rather than Next's.
 */
export const GET = handleNextRequest;
export const HEAD = handleNextRequest;
export const POST = handleNextRequest;
export const PUT = handleNextRequest;
export const PATCH = handleNextRequest;
export const DELETE = handleNextRequest;
export const OPTIONS = handleNextRequest;
