import Link from 'next/link';
import type { ReactNode } from 'react';
import { ApiRequestError } from '@/lib/client/api-client';
import { AppHeader } from './app-header';
import { OrgIdOfUrl } from './org-id-of-url';

/**
 * Every error notice: a heading, what happened, and what the reader can do
 * next. The heading is the page's h1 when the notice is all the page holds
 * (screen readers jump to a page's h1 first), an h2 under the page's own
 * heading otherwise.
 */
export function ErrorNoticeFrame({
  title,
  children,
  actions,
  headingLevel: Heading = 'h2',
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
  headingLevel?: 'h1' | 'h2';
}) {
  return (
    <div className="notice error" role="alert">
      <Heading>{title}</Heading>
      <p>{children}</p>
      {actions ? <div className="actions">{actions}</div> : null}
    </div>
  );
}

/** A failed request in words: a 429 says when to come back, anything else its own message. */
export function loadFailureText(error: Error): string {
  if (error instanceof ApiRequestError && error.status === 429) {
    return `Too many requests. Try again in ${error.retryAfterSeconds ?? 'a few'} seconds.`;
  }
  return error.message || 'Something went wrong.';
}

export function RetryButton({ onRetry, primary }: { onRetry: () => void; primary?: boolean }) {
  return (
    <button type="button" className={primary ? 'button primary' : 'button'} onClick={onRetry}>
      Retry
    </button>
  );
}

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
    <ErrorNoticeFrame
      title={title}
      actions={
        <a className="button" href={retryHref}>
          Try again
        </a>
      }
    >
      {detail}
    </ErrorNoticeFrame>
  );
}

/**
 * Shown instead of any data when the key cannot read the organization of the
 * URL: the page's only content, so its heading is the page's h1.
 */
export function NoAccessNotice() {
  return (
    <ErrorNoticeFrame
      headingLevel="h1"
      title="You don’t have access to this organization"
      actions={
        <Link className="button primary" href="/orgs">
          Choose an organization
        </Link>
      }
    >
      The API key you signed in with cannot read the events of organization <OrgIdOfUrl />, or the
      organization does not exist.
    </ErrorNoticeFrame>
  );
}

/**
 * The whole page shown for an organization the signed-in key cannot read:
 * rendered by app/orgs/[orgId]/forbidden.tsx and not-found.tsx, which Next
 * gives no props (so the id is read from the URL, and the key from the
 * session; the page that refused had checked it).
 */
export function NoAccessPage({ publicKey }: { publicKey: string | null }) {
  return (
    <>
      {publicKey ? <AppHeader publicKey={publicKey} /> : null}
      <main id="main" className="page narrow">
        <NoAccessNotice />
      </main>
    </>
  );
}
