import Link from 'next/link';
import type { ReactNode } from 'react';
import { ApiRequestError } from '@/lib/client/api-client';
import { AppHeader } from './app-header';

/** Every error notice: a heading, what happened, and what the reader can do next. */
export function ErrorNoticeFrame({
  title,
  children,
  actions,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="notice error" role="alert">
      <h2>{title}</h2>
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

/** Shown instead of any data when the key cannot read this organization. */
export function NoAccessNotice({ orgId }: { orgId: string }) {
  return (
    <ErrorNoticeFrame
      title="You don’t have access to this organization"
      actions={
        <Link className="button primary" href="/orgs">
          Choose an organization
        </Link>
      }
    >
      The API key you signed in with cannot read the events of organization <code>{orgId}</code>, or
      the organization does not exist.
    </ErrorNoticeFrame>
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
