import 'server-only';
import type { ReactNode } from 'react';
import { toApiError } from '@/lib/domain/errors';
import { outagePageHrefs } from '@/lib/dashboard/server';
import { getLogger } from '@/lib/ops/log';
import { ErrorNoticeFrame } from '@/components/notices';

/**
 * A dashboard page's server rendering, or, when the database cannot answer
 * right now (the session check, or the API the page calls, answered 503), a
 * page that says so and reloads itself once the Retry-After has passed. Next
 * would show its generic "Something went wrong" with a 500 instead, and an
 * organization that could not be looked up read as "no access". Anything
 * else (a redirect, a bug) goes on as thrown. It stands in for a page, as
 * error.tsx and not-found.tsx do, and logs through lib/ops, which no browser
 * code may import: so it lives with the pages, not in components/.
 */
export async function unlessUnavailable(render: () => Promise<ReactNode>): Promise<ReactNode> {
  try {
    return await render();
  } catch (error) {
    const answer = toApiError(error);
    if (answer.status !== 503) throw error;
    getLogger().warn({ component: 'dashboard', err: error }, 'page shown as unavailable');
    const retryAfter = Number(
      answer.headers.find(([name]) => name.toLowerCase() === 'retry-after')?.[1] ?? 5,
    );
    return (
      <UnavailablePage
        detail={answer.detail}
        retryAfterSeconds={retryAfter}
        hrefs={await outagePageHrefs()}
      />
    );
  }
}

function UnavailablePage({
  detail,
  retryAfterSeconds,
  hrefs,
}: {
  detail: string;
  retryAfterSeconds: number;
  hrefs: Awaited<ReturnType<typeof outagePageHrefs>>;
}) {
  const refresh = hrefs.reload ? `${retryAfterSeconds}; url=${hrefs.reload}` : retryAfterSeconds;
  return (
    <main id="main" className="page narrow">
      {/* React places it in the head: the browser reloads the page by itself,
          to an address marked so that the reload is not the user's activity
          (lib/dashboard/page-load.ts); "Try again" is, and goes unmarked. */}
      <meta httpEquiv="refresh" content={String(refresh)} />
      <ErrorNoticeFrame
        headingLevel="h1"
        title="The events can’t be shown right now"
        actions={
          <a className="button primary" href={hrefs.retry}>
            Try again
          </a>
        }
      >
        {detail} This page reloads by itself.
      </ErrorNoticeFrame>
    </main>
  );
}
