import { handleNextRequest } from '@/lib/api/next-adapter';

// /api/public/v1.0 itself and anything else under it – the API's JSON 404
// The logic lives in lib/api (shared with server.ts's fast path); every
// method is routed there so non-GET requests get the API's JSON 405.
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = handleNextRequest;
export const HEAD = handleNextRequest;
export const POST = handleNextRequest;
export const PUT = handleNextRequest;
export const PATCH = handleNextRequest;
export const DELETE = handleNextRequest;
export const OPTIONS = handleNextRequest;
