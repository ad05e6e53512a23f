import { refuseMethod } from '@/lib/dashboard/responses';
import { deleteView, updateView, withViewsAccess } from '@/lib/dashboard/saved-views';

type Params = { params: Promise<{ orgId: string; viewId: string }> };

// PATCH /api/orgs/{orgId}/views/{viewId} – rename or re-share a view (its owner only)
export function PATCH(request: Request, { params }: Params): Promise<Response> {
  return withViewsAccess(request, params, (context, viewId) =>
    updateView(context, viewId!, request),
  );
}

// DELETE /api/orgs/{orgId}/views/{viewId} – delete a view (its owner only)
export function DELETE(request: Request, { params }: Params): Promise<Response> {
  return withViewsAccess(request, params, (context, viewId) => deleteView(context, viewId!));
}

// GET, PUT, POST /api/orgs/{orgId}/views/{viewId} – a JSON 405 naming PATCH and DELETE
const refused = refuseMethod(['PATCH', 'DELETE']);
export { refused as GET, refused as PUT, refused as POST, refused as OPTIONS };
