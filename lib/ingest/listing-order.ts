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
 * the id decides. An event whose `created` has a fraction of its own keeps it.
 */
const KEYS_PER_SECOND = 999;
export class ListingOrder {
  private second = Number.NaN;
  private ordinal = 0;

  constructor(private readonly newestFirst = true) {}

  /**
   * A listing starts again (a mirror's next window or page). `listedBefore`
   * events of `second` came before it in the same listing: a page p > 1 of a
   * window exists only when pages 1..p-1 were all in the window's top second.
   */
  restart(second?: number, listedBefore = 0): void {
    this.second = second ?? Number.NaN;
    this.ordinal = listedBefore;
  }

  /** The sort key of the next listed event, from its `created` (ms). */
  sortKey(created: number): number {
    if (created % 1000 !== 0) return created;
    if (created !== this.second) {
      this.second = created;
      this.ordinal = 0;
    }
    const step = Math.min(KEYS_PER_SECOND - 1, this.ordinal++);
    return this.newestFirst ? created + 999 - step : created + 1 + step;
  }
}
