import { DASHBOARD_ACTIVITY_HEADER, DASHBOARD_BACKGROUND_VALUE } from '@/lib/domain/limits';

/**
 * Which of the dashboard's API calls are the user's activity, for the idle
 * timeout (lib/auth/session-activity.ts). A call made within
 * INPUT_ACTIVITY_WINDOW_MS of the user's last input (a key, a click or touch,
 * a wheel turn) answers it: the rows of a filter just clicked, the event
 * just opened, and the page's own loads in the window after it was
 * shown. Any other is marked background: the live count asked every
 * few seconds (always), and what the page fetches by itself, such as the
 * rows Live brings in, so a page left open does not keep its session alive.
 * Page loads count on the server (lib/dashboard/server.ts).
 */

/** How long after an input the calls it sets off are still its activity. */
export const INPUT_ACTIVITY_WINDOW_MS = 10_000;

/** The input events that are activity. Scrolling with them is, reading alone is not. */
export const INPUT_EVENTS = ['keydown', 'pointerdown', 'wheel', 'touchstart'] as const;

let lastInput = Number.NEGATIVE_INFINITY;

/** Notes an input at `now` (performance.now() ms). */
export function noteInput(now: number = performance.now()): void {
  lastInput = now;
}

/**
 * The headers that mark a call as background, or none: background when it
 * says so itself (the live count) or no input came within the window.
 */
export function activityHeaders(
  options: { background?: boolean; now?: number } = {},
): Record<string, string> {
  const now = options.now ?? performance.now();
  return options.background || now - lastInput > INPUT_ACTIVITY_WINDOW_MS
    ? { [DASHBOARD_ACTIVITY_HEADER]: DASHBOARD_BACKGROUND_VALUE }
    : {};
}

/**
 * Listens for input on `target` (the window) from now on; returns the
 * function that stops. The page has just been shown (this runs as it
 * hydrates), and that counts as an input: its load was activity (the server
 * counted the request), and what it asks for in the window after (its rows,
 * the next page it warms) is that load's. Timed from the request alone, a
 * page that took seconds to show had used them of the idle timeout before
 * its reader could click anything.
 */
export function watchInput(target: Pick<Window, 'addEventListener' | 'removeEventListener'>) {
  noteInput();
  const listener = () => noteInput();
  const options = { capture: true, passive: true } as const;
  for (const type of INPUT_EVENTS) target.addEventListener(type, listener, options);
  return () => {
    for (const type of INPUT_EVENTS) target.removeEventListener(type, listener, options);
  };
}
