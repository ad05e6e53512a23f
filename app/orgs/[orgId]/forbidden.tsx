import type { Metadata } from 'next';
import { NoAccessPage } from '@/components/notices';
import { sessionPublicKeyForHeader } from '@/lib/dashboard/server';

export const metadata: Metadata = { title: 'No access' };

/** An organization the signed-in key holds no role in (lib/dashboard/org-access.ts): answered 403. */
export default async function OrgForbidden() {
  return <NoAccessPage publicKey={await sessionPublicKeyForHeader()} />;
}
