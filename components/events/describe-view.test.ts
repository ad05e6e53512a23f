import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_VIEW } from '@/lib/client/url-state';
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
        { ...DEFAULT_VIEW, from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 2) },
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
});
