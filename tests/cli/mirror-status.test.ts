import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MirrorProgress } from '@/lib/mirror/mirror';
import { rejectedNote, StatusLine } from '@/scripts/cli/mirror-status';

/** A StatusLine writing to a log (no terminal) on a clock the test moves. */
function logged() {
  const lines: string[] = [];
  let now = 0;
  const status = new StatusLine(
    {
      isTTY: false,
      write: (chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      },
    },
    () => now,
  );
  return {
    status,
    lines,
    at: (ms: number) => {
      now = ms;
    },
  };
}

function progress(
  copied: number,
  skipped: number,
  requests: number,
  timing: Pick<MirrorProgress, 'seconds' | 'walk'> = { seconds: 1, walk: { copied, seconds: 1 } },
): MirrorProgress {
  return { copied, skipped, rejected: 0, requests, retries: 0, window: { pageNum: 1 }, ...timing };
}

test("a --follow mirror's rate is its catch-up's own: the waits between checks are not counted in", () => {
  const { status, lines } = logged();
  // Ten minutes into the run, 5,000 copied by the first walk; this catch-up copied 20 in half a second.
  status.update(progress(5020, 0, 30, { seconds: 600, walk: { copied: 20, seconds: 0.5 } }));
  assert.deepEqual(lines, [
    'Mirroring: 5,020 copied (40 events/s), 0 already present, 30 requests; window … to now\n',
  ]);
});

test('off a terminal, a --follow mirror of a quiet org logs no progress line at each check: only when copied or already-present counts moved, at most every 5 s', () => {
  const { status, lines, at } = logged();
  status.update(progress(500, 0, 1));
  at(1000);
  status.update(progress(1000, 0, 2)); // within 5 s of the last line
  at(6000);
  status.update(progress(1500, 0, 3));
  // Caught up; then checks a minute apart that find nothing new.
  status.caughtUp({
    ...progress(1500, 0, 4),
    through: '2026-11-28T20:00:00Z',
    nextCheckSeconds: 60,
  });
  for (let check = 1; check <= 5; check++) {
    at(6000 + check * 60_000);
    status.update(progress(1500, 0, 4 + check));
    status.caughtUp({
      ...progress(1500, 0, 4 + check),
      through: '2026-11-28T20:00:00Z',
      nextCheckSeconds: 60,
    });
  }
  // One that copied something is logged, with its catch-up.
  at(400_000);
  status.update(progress(1502, 1, 10));
  status.caughtUp({
    ...progress(1502, 1, 10),
    through: '2026-11-28T20:05:00Z',
    nextCheckSeconds: 60,
  });
  assert.deepEqual(
    lines.map((line) => line.replace(/\(checked \d\d:\d\d:\d\d UTC\)/, '(checked …)')),
    [
      'Mirroring: 500 copied (500 events/s), 0 already present, 1 requests; window … to now\n',
      'Mirroring: 1,500 copied (1,500 events/s), 0 already present, 3 requests; window … to now\n',
      'Up to date through 2026-11-28T20:00:00Z (checked …): 1,500 events copied so far; next check in 60 s\n',
      'Mirroring: 1,502 copied (1,502 events/s), 1 already present, 10 requests; window … to now\n',
      'Up to date through 2026-11-28T20:05:00Z (checked …): 1,502 events copied so far; next check in 60 s\n',
    ],
  );
});

test('on a terminal narrower than the status line, each redraw is cut to fit: a line that wrapped was redrawn from its last row only (\\r), leaving its first rows behind', () => {
  const writes: string[] = [];
  const status = new StatusLine(
    {
      isTTY: true,
      columns: 40,
      write: (chunk: string | Uint8Array) => {
        writes.push(String(chunk));
        return true;
      },
    },
    () => 1000,
  );
  status.update(progress(12_500, 300, 26));
  status.waiting('the source asked to slow down (429)', 30_000);
  assert.equal(writes.length, 2, JSON.stringify(writes));
  assert.match(writes[0]!, /^\rMirroring: 12,500 copied/);
  // An outage's line stays (it is not redrawn): whole, so its reason is read.
  status.sourceDown('connect ECONNREFUSED 127.0.0.1:5899', 60);
  assert.ok(
    writes.at(-2)!.endsWith('ECONNREFUSED 127.0.0.1:5899; trying again in 60 s\u001b[K'),
    JSON.stringify(writes.at(-2)),
  );
  assert.equal(writes.at(-1), '\n');
  for (const write of writes.slice(0, 2)) {
    // eslint-disable-next-line no-control-regex -- the redraw's own escapes take no column
    const shown = write.replace(/\r|\u001b\[K/g, '');
    assert.ok(shown.length < 40, `${shown.length} columns: ${JSON.stringify(write)}`);
  }
});

test('a rejected record is named by its id when it has a usable one', () => {
  assert.equal(
    rejectedNote({ id: '6b1c2d3e4f5a6b7c8d9e0f01', created: 'soon' }, 'created: not a date'),
    'Rejected an event the source served (id "6b1c2d3e4f5a6b7c8d9e0f01"): created: not a date',
  );
  for (const record of [null, 7, { id: 42 }, { id: '' }, { id: 'x'.repeat(65) }, {}]) {
    assert.equal(
      rejectedNote(record, 'not an event'),
      'Rejected an event the source served: not an event',
      JSON.stringify(record),
    );
  }
});
