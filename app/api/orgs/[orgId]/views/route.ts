import { refuseMethod } from '@/lib/dashboard/responses';
import { createView, listViews, withViewsAccess } from '@/lib/dashboard/saved-views';

type Params = { params: Promise<{ orgId: string }> };

// GET /api/orgs/{orgId}/views – the signed-in key's views and the org's shared ones
export function GET(request: Request, { params }: Params): Promise<Response> {
  return withViewsAccess(request, params, (context) => listViews(context));
}

// POST /api/orgs/{orgId}/views – save the current view under a name
export function POST(request: Request, { params }: Params): Promise<Response> {
  return withViewsAccess(request, params, (context) => createView(context, request));
}

// PUT, PATCH, DELETE /api/orgs/{orgId}/views – a JSON 405 naming GET and POST
const refused = refuseMethod(['GET', 'POST']);
export { refused as PUT, refused as PATCH, refused as DELETE, refused as OPTIONS };
