import Link from 'next/link';
import { AppHeader } from './app-header';

/** A failure the server hit while rendering; "Try again" reloads the page. */
export function ErrorNotice({
  title,
  detail,
  retryHref,
}: {
  title: string;
  detail: string;
  retryHref: string;
}) {
  return (
    <div className="notice error" role="alert">
      <h2>{title}</h2>
      <p>{detail}</p>
      <div className="actions">
        <a className="button" href={retryHref}>
          Try again
        </a>
      </div>
    </div>
  );
}

/** Shown instead of any data when the key cannot read this organization. */
export function NoAccessNotice({ orgId }: { orgId: string }) {
  return (
    <div className="notice error" role="alert">
      <h2>You don’t have access to this organization</h2>
      <p>
        The API key you signed in with cannot read the events of organization <code>{orgId}</code>,
        or the organization does not exist.
      </p>
      <div className="actions">
        <Link className="button primary" href="/orgs">
          Choose an organization
        </Link>
      </div>
    </div>
  );
}

/** The whole page shown for an organization the signed-in key cannot read. */
export function NoAccessPage({ orgId, publicKey }: { orgId: string; publicKey: string }) {
  return (
    <>
      <AppHeader publicKey={publicKey} />
      <main id="main" className="page narrow">
        <NoAccessNotice orgId={orgId} />
      </main>
    </>
  );
}
