/**
 * The order a source listed events in, kept among events that share a second
 * (issue 11). The real service sorts by its stored, sub-second time but
 * renders `created` to the second (atlas-events-api.md §6), so a listing's
 * order within a second is not its ids' order, and a copy that sorted those
 * events by id would reorder them. Each such event's sort key (the store's
 * `created`, never its document, which keeps the source's text) is spread
 * over its second in listing order: newest first, the first listed gets
 * .999, the next .998, ...; oldest first, .001, .002, .... Never .000: the
 * real service's stored times lie inside the second they are shown in, so
 * `maxDate=…T10:00:00Z` leaves out every event shown as 10:00:00, and
 * `minDate` on the second takes them all, whichever order a file listed them
 * in (an oldest-first file's first event at .000 was counted in, its others
 * not). Past 999 events in one second the rest share the last key and then
 * the id decides. An event whose `created` has a fraction of its own keeps it,
 * and the whole-second events listed after it in its second go on from there
 * (.499, .498, ... after a .500, newest first): counted from .999 regardless,
 * an event listed after the .500 one was sorted before it, and a copy of a
 * source holding both kinds (another org-events) listed them in another order.
 * A whole second listed right after a fraction's events shares their key when
 * its id already sorts it after them (by id among equal keys, as the store
 * does): an export lists a whole second between two events of one fraction
 * when they share that key, and the next key put it below the second one.
 */
const KEYS_PER_SECOND = 999;
export class ListingOrder {
  private second = Number.NaN;
  /**
   * The sort key given to the last event of `second`; before its first, the
   * edge the keys move away from (newest first the next second's start,
   * oldest first its own).
   */
  private last = Number.NaN;
  /** Events of `second` given a key so far. */
  private listedInSecond = 0;
  /** The last event's id (eventKey) when its key is a fraction's own (its own or shared). */
  private lastFraction: readonly [number, number] | undefined;
  /** -1 newest first (keys count down), 1 oldest first (they count up). */
  private readonly step: number;

  constructor(newestFirst = true) {
    this.step = newestFirst ? -1 : 1;
  }

  /** Where the keys of `second` start from, one step before its first key. */
  private edge(second: number): number {
    return this.step < 0 ? second + KEYS_PER_SECOND + 1 : second;
  }

  /**
   * A listing starts again (a mirror's next window or page). `listedBefore`
   * events of `second` came before it in the same listing: a page p > 1 of a
   * window exists only when pages 1..p-1 were all in the window's top second.
   * When this order gave those very events their keys, it goes on from the
   * last one (a fraction among them included); a run resuming another's page
   * counts from .999 (or .001) past them.
   */
  restart(second?: number, listedBefore = 0): void {
    if (second === this.second && listedBefore > 0 && listedBefore === this.listedInSecond) return;
    this.second = second ?? Number.NaN;
    this.listedInSecond = listedBefore;
    // Not this order's last event: no fraction's key to share.
    this.lastFraction = undefined;
    this.last =
      second === undefined
        ? Number.NaN
        : this.edge(second) + this.step * Math.min(listedBefore, KEYS_PER_SECOND);
  }

  /**
   * The sort key of the next listed event, from its `created` (ms) and,
   * when known, its id's key (eventKey).
   */
  sortKey(created: number, id?: readonly [number, number]): number {
    const second = Math.floor(created / 1000) * 1000;
    if (second !== this.second) {
      this.second = second;
      this.last = this.edge(second);
      this.listedInSecond = 0;
      this.lastFraction = undefined;
    }
    this.listedInSecond++;
    // A fraction of its own is kept; a whole second takes the fraction's key
    // when its id sorts it after the last event holding that key, else the
    // next key, within .001 to .999 (ties once the second's keys run out).
    const after = this.lastFraction;
    if (created !== second) {
      this.last = created;
      this.lastFraction = id;
    } else if (after && id && this.step * compareIds(id, after) > 0) {
      this.lastFraction = id;
    } else {
      this.last = Math.min(second + KEYS_PER_SECOND, Math.max(second + 1, this.last + this.step));
      this.lastFraction = undefined;
    }
    return this.last;
  }
}

/** Two ids' keys (eventKey) in the order of the ids. */
function compareIds(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
