'use client';
import { useParams } from 'next/navigation';

/** The organization id in the URL, for what Next renders without params (forbidden.tsx, not-found.tsx). */
export function OrgIdOfUrl() {
  const { orgId } = useParams<{ orgId: string }>();
  return <code>{orgId}</code>;
}
