import Link from 'next/link';

export default function NotFound() {
  return (
    <main id="main" className="page narrow">
      <div className="notice">
        <h1>Page not found</h1>
        <p>There is nothing at this address.</p>
        <div className="actions">
          <Link className="button primary" href="/">
            Go to your events
          </Link>
        </div>
      </div>
    </main>
  );
}
