import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Org Events', template: '%s · Org Events' },
  description: 'Browse your organization’s events.',
};

/**
 * Every page is rendered per request, the not-found page too: the
 * Content-Security-Policy names a nonce of each response
 * (lib/http/content-security-policy.ts), and a page prerendered at build
 * time would hold scripts without it, which the browser refuses.
 */
export const dynamic = 'force-dynamic';

export const viewport: Viewport = {
  colorScheme: 'light dark',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#f5f7fa' },
    { media: '(prefers-color-scheme: dark)', color: '#161b22' },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
