import { redirect } from 'next/navigation';
import { callApi, checkCurrentSession } from '@/lib/dashboard/server';
import type { OrgList } from '@/lib/client/api-client';
import { API_ORGS_PATH, eventsPath } from '@/lib/client/url-state';
import { unlessUnavailable } from './unavailable';

/** `/`: straight to the only organization, else the picker; sign-in when signed out. */
export default async function HomePage() {
  return unlessUnavailable(() => homePage());
}

async function homePage(): Promise<never> {
  const checked = await checkCurrentSession();
  if (!('session' in checked))
    redirect(`/sign-in${checked.ended === 'idle' ? '?reason=idle' : ''}`);
  const orgs = await callApi<OrgList>(API_ORGS_PATH);
  const only = orgs.ok && orgs.body.results.length === 1 ? orgs.body.results[0] : undefined;
  redirect(only ? eventsPath(only.id) : '/orgs');
}
