import Link from 'next/link';
import { SignOutButton } from './sign-out-button';

type Props = {
  publicKey: string;
  org?: { id: string; name: string };
};

/** The signed-in shell: where you are, which key you are, and the way out. */
export function AppHeader({ publicKey, org }: Props) {
  return (
    <header className="app-header">
      <Link href="/orgs" className="brand">
        Org Events
      </Link>
      {org ? (
        <nav aria-label="Breadcrumb" className="crumb">
          <span aria-hidden="true">/ </span>
          <Link href={`/orgs/${org.id}/events`}>{org.name}</Link>{' '}
          <Link href="/orgs" className="button small ghost">
            Switch organization
          </Link>
        </nav>
      ) : null}
      <span className="spacer" />
      <span className="who">
        Signed in as <span className="mono">{publicKey}</span>
      </span>
      <SignOutButton />
    </header>
  );
}
