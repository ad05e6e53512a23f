// A node:test reporter, added by run-tests.mjs beside the usual one. On Node
// 20, --test-timeout kills a test file's process and reports the file alone
// ("test timed out after 600000ms"): none of its own tests ended, so no
// reporter lists them, and which one hung was left to guess. The file's
// process does send each test's test:dequeue (it begins) and test:complete
// (it ends) as they happen; those begun and not ended when the file timed
// out are the ones that hung, said here on stderr. A test that never yields
// to the event loop (a loop without end) keeps even its start from being
// sent: the file is then said to have none running, or none begun.

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* hungTests(source) {
  /** Per file, the tests begun and not ended, in the order they began. */
  const running = new Map();
  /** The files any test of which has begun. */
  const begun = new Set();
  for await (const { type, data } of source) {
    const file = data?.file;
    // The file itself is the runner's test of nesting 0 named by its path.
    if (!file || (data.nesting === 0 && data.name === file)) {
      if (
        type === 'test:fail' &&
        file &&
        data.details?.error?.failureType === 'testTimeoutFailure'
      ) {
        yield timedOut(file, begun.has(file), running.get(file) ?? []);
      }
      continue;
    }
    if (type === 'test:dequeue') {
      begun.add(file);
      running.set(file, [...(running.get(file) ?? []), { nesting: data.nesting, name: data.name }]);
    } else if (type === 'test:complete') {
      const tests = running.get(file) ?? [];
      const at = tests.findLastIndex((t) => t.nesting === data.nesting && t.name === data.name);
      if (at !== -1) tests.splice(at, 1);
    }
  }
}

function timedOut(file, anyBegun, tests) {
  if (!anyBegun) {
    return `${file} timed out before any of its tests began: loading its modules, or awaiting at its top level\n`;
  }
  if (tests.length === 0) {
    return `${file} timed out with none of its tests running: each had ended (a handle left open keeps its process alive), or one never yields to the event loop (then its start could not be reported)\n`;
  }
  const lines = tests.map((t) => `${'  '.repeat(t.nesting + 1)}${t.name}`);
  return `${file} timed out while these of its tests were running:\n${lines.join('\n')}\n`;
}
