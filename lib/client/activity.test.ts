import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  activityHeaders,
  INPUT_ACTIVITY_WINDOW_MS,
  INPUT_EVENTS,
  noteInput,
  watchInput,
} from './activity';

const BACKGROUND = { 'X-Org-Events-Activity': 'background' };

describe('lib/client/activity', () => {
  test('a page just shown (the watch started): its calls within the window after are activity, later ones background', () => {
    noteInput(Number.NEGATIVE_INFINITY);
    const stop = watchInput(new EventTarget() as unknown as Window);
    const shown = performance.now();
    try {
      assert.deepEqual(activityHeaders({ now: shown }), {});
      assert.deepEqual(activityHeaders({ now: shown + INPUT_ACTIVITY_WINDOW_MS - 1 }), {});
      assert.deepEqual(activityHeaders({ now: shown + INPUT_ACTIVITY_WINDOW_MS + 1 }), BACKGROUND);
      assert.deepEqual(activityHeaders({ now: shown, background: true }), BACKGROUND);
    } finally {
      stop();
    }
  });

  test('a call within the window after an input is activity; later, or asked by the page, background', () => {
    noteInput(1_000_000);
    assert.deepEqual(activityHeaders({ now: 1_000_000 }), {});
    assert.deepEqual(activityHeaders({ now: 1_000_000 + INPUT_ACTIVITY_WINDOW_MS }), {});
    assert.deepEqual(
      activityHeaders({ now: 1_000_000 + INPUT_ACTIVITY_WINDOW_MS + 1 }),
      BACKGROUND,
    );
    assert.deepEqual(activityHeaders({ now: 1_000_000, background: true }), BACKGROUND);
  });

  test('the inputs watched are noted, until the watch stops', () => {
    const target = new EventTarget();
    const stop = watchInput(target as unknown as Window);
    const later = performance.now() + INPUT_ACTIVITY_WINDOW_MS * 2;
    for (const type of INPUT_EVENTS) {
      noteInput(Number.NEGATIVE_INFINITY);
      assert.deepEqual(activityHeaders(), BACKGROUND, `${type}: none yet`);
      target.dispatchEvent(new Event(type));
      assert.deepEqual(activityHeaders(), {}, type);
    }
    assert.deepEqual(activityHeaders({ now: later }), BACKGROUND);
    stop();
    noteInput(Number.NEGATIVE_INFINITY);
    target.dispatchEvent(new Event('keydown'));
    assert.deepEqual(activityHeaders(), BACKGROUND, 'no longer watched');
  });
});
