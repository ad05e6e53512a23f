/**
 * The dashboard's idle timeout (SESSION_IDLE_SECONDS): a session that has
 * seen no activity for that long is refused, as a signed-out one is, however
 * long it still had to live (SESSION_TTL_SECONDS, its absolute end, still
 * holds for an active one). Activity is a request the user made: a page
 * load, or an API call of the dashboard not marked as background (the live
 * count it asks every few seconds is; lib/client/activity.ts).
 *
 * The last activity lives beside the revocations, in the authentication
 * state (lib/auth/shared-state.ts): in Redis when REDIS_URL is set, so
 * every instance sees it, else in the process. A session none has been
 * recorded for was last active when it was issued (signing in is activity).
 *
 * Recording is a write to that state, so it is made at most once per
 * activityRefreshMs (a minute at most) per session, not on every request:
 * the recorded time then trails the real last activity by less than that,
 * and an idle session is refused between IDLE - refresh and IDLE after its
 * last request.
 */

/** Activity is recorded at most this often per session. */
export const MAX_ACTIVITY_REFRESH_MS = 60_000;

/**
 * How stale a session's recorded activity may be before a request records it
 * again: a tenth of the idle timeout, from 1 s up to a minute (a 30-minute
 * timeout may end a session up to a minute early, a 10-second one a second).
 */
export function activityRefreshMs(idleMs: number): number {
  return Math.max(1000, Math.min(MAX_ACTIVITY_REFRESH_MS, Math.floor(idleMs / 10)));
}

/** Whether a session last active at `lastActive` (ms) is idle at `now`; never with idleMs 0 (off). */
export function isIdle(lastActive: number, idleMs: number, now: number): boolean {
  return idleMs > 0 && now - lastActive >= idleMs;
}

/**
 * Whether a request at `now` records its activity: when it is activity
 * (`record`), the session is not idle already (an idle session stays
 * refused: nothing brings it back) and what was recorded is at least
 * `refreshMs` old.
 */
export function recordsActivity(
  lastActive: number,
  use: { idleMs: number; refreshMs: number; record: boolean },
  now: number,
): boolean {
  return use.record && !isIdle(lastActive, use.idleMs, now) && now - lastActive >= use.refreshMs;
}

/** An idle timeout in words, for the sign-in page: "30 minutes", "1 hour", "90 seconds". */
export function idleTimeoutInWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return plural(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return plural(seconds / 60, 'minute');
  return plural(seconds, 'second');
}
