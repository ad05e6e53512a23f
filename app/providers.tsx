'use client';

import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { watchInput } from '@/lib/client/activity';
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
  return <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>;
}
