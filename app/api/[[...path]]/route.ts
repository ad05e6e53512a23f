import { unknownRoute } from '@/lib/dashboard/responses';

// ANY /api/... that no route file serves – the JSON 404, not Next's HTML page
export {
  unknownRoute as GET,
  unknownRoute as HEAD,
  unknownRoute as POST,
  unknownRoute as PUT,
  unknownRoute as PATCH,
  unknownRoute as DELETE,
  unknownRoute as OPTIONS,
};

export const dynamic = 'force-dynamic';
