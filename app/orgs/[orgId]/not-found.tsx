import type { Metadata } from 'next';
import { NoAccessPage } from '@/components/notices';
import { sessionPublicKeyForHeader } from '@/lib/dashboard/server';

export const metadata: Metadata = { title: 'No access' };

/**
 * An unknown or malformed organization id (lib/dashboard/org-access.ts):
 * answered 404 with the same page as one the key cannot read, which says
 * either may be the case.
 */
export default async function OrgNotFound() {
  return <NoAccessPage publicKey={await sessionPublicKeyForHeader()} />;
}
