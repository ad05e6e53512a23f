import type { Metadata } from 'next';
import Link from 'next/link';
import { AppHeader } from '@/components/app-header';
import { ErrorNotice } from '@/components/notices';
import { callApi, requireSession } from '@/lib/dashboard/server';
import type { OrgList } from '@/lib/client/api-client';
import { API_ORGS_PATH, eventsPath } from '@/lib/client/url-state';
import { unlessUnavailable } from '@/app/unavailable';

export const metadata: Metadata = { title: 'Organizations' };

/** The organizations this key can read (the API's `GET /orgs` extension). */
export default async function OrgsPage() {
  return unlessUnavailable(() => orgsPage());
}

async function orgsPage() {
  const principal = await requireSession('/orgs');
  const orgs = await callApi<OrgList>(API_ORGS_PATH);
  return (
    <>
      <AppHeader publicKey={principal.publicKey} />
      <main id="main" className="page narrow">
        <h1>Organizations</h1>
        {!orgs.ok ? (
          <ErrorNotice
            title="Organizations could not be loaded"
            detail={orgs.body?.detail ?? `The server answered ${orgs.status}.`}
            retryHref="/orgs"
          />
        ) : orgs.body.results.length === 0 ? (
          <div className="notice">
            <h2>No organizations</h2>
            <p>
              The API key <span className="mono">{principal.publicKey}</span> cannot read the events
              of any organization.
            </p>
          </div>
        ) : (
          <>
            {/* The key is named here too: on a phone the header has no room for it. */}
            <p className="muted">
              Your key <span className="mono">{principal.publicKey}</span> can read{' '}
              {orgs.body.results.length === 1
                ? 'one organization.'
                : `${orgs.body.results.length} organizations.`}
            </p>
            <ul className="org-list" aria-label="Organizations">
              {orgs.body.results.map((org) => (
                <li key={org.id}>
                  <Link href={eventsPath(org.id)}>
                    <span className="org-name">{org.name}</span>
                    <span className="org-id">{org.id}</span>
                  </Link>
                </li>
              ))}
            </ul>
          </>
        )}
      </main>
    </>
  );
}
