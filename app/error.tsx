'use client';

/** Last-resort boundary: a render failure shows a retry, never a stack trace. */
export default function ErrorPage({
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <main id="main" className="page narrow">
      <div className="notice error" role="alert">
        <h2>Something went wrong</h2>
        <p>The page could not be shown. Try again, or go back to your organizations.</p>
        <div className="actions">
          <button type="button" className="button primary" onClick={() => reset()}>
            Try again
          </button>
          <a className="button" href="/orgs">
            Organizations
          </a>
        </div>
      </div>
    </main>
  );
}
