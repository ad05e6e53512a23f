'use client';

import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { watchInput } from '@/lib/client/activity';
import { dropAutomaticReload } from '@/lib/client/automatic-reload';
import { getQueryClient } from '@/lib/client/query-client';

export function Providers({ children }: { children: ReactNode }) {
  // From here on the server-rendered controls answer: a change made before
  // hydration (a select picked while the page's script still loads) is
  // lost, so the browser tests wait for this mark before they act.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
  }, []);
  // The user's input tells the API calls it sets off from those the page
  // makes by itself, for the session's idle timeout (lib/client/activity.ts).
  useEffect(() => watchInput(window), []);
  // The outage page's own reload marked the address (lib/client/automatic-reload.ts);
  // the page is back, so the address the user sees, bookmarks and reloads goes
  // unmarked. The outage page itself keeps it: it reloads to the marked address
  // by itself whatever the bar says, and the user's reload of it stays as it was.
  useEffect(() => {
    if (!document.querySelector('meta[http-equiv="refresh"]')) dropAutomaticReload(window);
  }, []);
  return <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>;
}
