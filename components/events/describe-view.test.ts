import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectionRange } from '@/lib/client/histogram';
import { DEFAULT_VIEW, apiListPath, listParams } from '@/lib/client/url-state';
import { eventCategories } from '@/lib/domain/catalog';
import { describeFiltersPhrase } from './describe-view';

describe('components/events/describe-view', () => {
  it('reads naturally after "N events": "in the last 24 hours", not "with last 24 hours"', () => {
    assert.equal(
      describeFiltersPhrase({ ...DEFAULT_VIEW, range: '24h' }, 'UTC'),
      'in the last 24 hours',
    );
    assert.equal(
      describeFiltersPhrase({ ...DEFAULT_VIEW, range: '1h', types: ['JOINED_ORG'] }, 'UTC'),
      'with event type Joined org in the last hour',
    );
    assert.equal(
      describeFiltersPhrase(
        // "to 2026-01-01 23:59" covers that minute, to its last millisecond: the whole day.
        { ...DEFAULT_VIEW, from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 2) - 1 },
        'UTC',
      ),
      'from 2026-01-01 00:00:00 UTC to 2026-01-02 00:00:00 UTC',
    );
    assert.equal(
      describeFiltersPhrase({ ...DEFAULT_VIEW, types: ['JOINED_ORG'] }, 'UTC'),
      'with event type Joined org',
    );
    assert.equal(describeFiltersPhrase(DEFAULT_VIEW, 'UTC'), '');
  });

  it('names a histogram pick ending at 11:30 "to 11:30:00", the end the list asks for (maxDate 11:29:59.999)', () => {
    // Minute bars from 10:00: bars 0 to 89 are 10:00 up to 11:30, as the histogram names them.
    const starts = Array.from({ length: 120 }, (_, minute) => Date.UTC(2026, 0, 31, 10, minute));
    const picked = selectionRange(starts, 'minute', 0, 89)!;
    const view = { ...DEFAULT_VIEW, from: picked.from, to: picked.to };
    const query = new URLSearchParams(apiListPath(listParams('org', view)).split('?')[1]);
    assert.equal(query.get('minDate'), '2026-01-31T10:00:00Z');
    assert.equal(query.get('maxDate'), '2026-01-31T11:29:59.999Z');
    // Before, "to 2026-01-31 11:29:00 UTC": a minute short of what is queried.
    assert.equal(
      describeFiltersPhrase(view, 'UTC'),
      'from 2026-01-31 10:00:00 UTC to 2026-01-31 11:30:00 UTC',
    );
    assert.equal(
      describeFiltersPhrase({ ...view, from: null }, 'UTC'),
      'until 2026-01-31 11:30:00 UTC',
    );
  });

  it('names a category left out by its size, not its 80 types one by one', () => {
    const billing = eventCategories('hosted').find((category) => category.name === 'Billing')!;
    assert.equal(
      describeFiltersPhrase(
        { ...DEFAULT_VIEW, excludeTypes: [...billing.types, 'JOINED_ORG'].sort() },
        'UTC',
      ),
      'with not 80 Billing types, not Joined org',
    );
    // Chosen whole, the same: it named the 80 types one by one.
    assert.equal(
      describeFiltersPhrase({ ...DEFAULT_VIEW, types: [...billing.types].sort() }, 'UTC'),
      'with event type 80 Billing types',
    );
  });

  it('says how long a range is whose end reads no later than its start, the clocks going back between them', () => {
    const view = {
      ...DEFAULT_VIEW,
      // 01:30 BST to the end of 00:59 GMT's minute: 00:30 to 01:00 UTC.
      from: Date.parse('2025-10-26T00:30:00Z'),
      to: Date.parse('2025-10-26T00:59:59.999Z'),
    };
    assert.equal(
      describeFiltersPhrase(view, 'Europe/London'),
      'from 2025-10-26 01:30:00 UTC+01:00 to 2025-10-26 01:00:00 UTC (30 minutes later: the clocks go back 1 hour in between)',
    );
    // Across the change, reading forwards: said as before.
    assert.equal(
      describeFiltersPhrase(
        { ...view, to: Date.parse('2025-10-26T01:59:59.999Z') },
        'Europe/London',
      ),
      'from 2025-10-26 01:30:00 UTC+01:00 to 2025-10-26 02:00:00 UTC',
    );
  });
});
