import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Progress } from '@/scripts/cli/progress';

/** A Progress drawing on a terminal `columns` wide; what it wrote, each write apart. */
function onTerminal(columns: number, total: number) {
  const writes: string[] = [];
  const stream = {
    isTTY: true,
    columns,
    write: (chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { progress: new Progress('Seeding', total, 'events', stream), writes };
}

test('on a terminal narrower than the bar, each redraw is cut to fit, without the gauge: a line that wrapped was redrawn from its last row only (\\r), leaving its first rows behind at every update', () => {
  const { progress, writes } = onTerminal(40, 200_000);
  progress.update(100_000);
  progress.update(200_000);
  progress.finish();
  assert.ok(writes.length >= 2, JSON.stringify(writes));
  // The gauge gives way first: how far it is stays in view.
  assert.match(writes[0]!, /^\rSeeding +50% 100,000 \/ 200,000 events/);
  for (const write of writes) {
    // eslint-disable-next-line no-control-regex -- the redraw's own escapes take no column
    const shown = write.replace(/\r|\n|\u001b\[K/g, '');
    assert.ok(shown.length < 40, `${shown.length} columns: ${JSON.stringify(write)}`);
  }
});

test('on a wide terminal, the whole line is drawn', () => {
  const { progress, writes } = onTerminal(200, 200_000);
  progress.update(200_000);
  // eslint-disable-next-line no-control-regex -- the redraw ends erasing the rest of the row
  assert.match(writes[0]!, /^\rSeeding \[#{28}\] 100% 200,000 \/ 200,000 events\u001b\[K$/);
});
