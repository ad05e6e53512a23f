'use client';

import Link from 'next/link';
import { ErrorNoticeFrame } from '@/components/notices';

/**
 * Last-resort boundary: a render failure shows a retry, never a stack trace.
 * It stands in for the whole page, so its heading is the page's h1.
 */
export default function ErrorPage({
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <main id="main" className="page narrow">
      <ErrorNoticeFrame
        headingLevel="h1"
        title="Something went wrong"
        actions={
          <>
            <button type="button" className="button primary" onClick={() => reset()}>
              Try again
            </button>
            <Link className="button" href="/orgs">
              Organizations
            </Link>
          </>
        }
      >
        The page could not be shown. Try again, or go back to your organizations.
      </ErrorNoticeFrame>
    </main>
  );
}
