// Where the admin CLI's bundle lives (scripts/build-cli.mjs makes it) and
// whether it is still what the sources say.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The bundle's folder, relative to the project. */
export const BUNDLE_DIR = 'dist/cli';
/** The source files the bundle was made from, relative to the project (JSON list). */
export const BUNDLE_INPUTS = `${BUNDLE_DIR}/inputs.json`;
/** Threads the CLI starts from a file of their own, bundled beside it. */
export const BUNDLE_WORKERS = [{ name: 'bulk-worker', source: 'lib/ingest/bulk-worker.ts' }];

/**
 * The bundle's entry file when the bundle is whole and newer than every
 * source file it was made from; undefined otherwise (not built, or a source
 * changed since: a checkout, an edit), and the CLI runs from the sources.
 */
export function freshCliBundle(root) {
  const dir = path.join(root, BUNDLE_DIR);
  const entry = path.join(dir, 'cli.cjs');
  try {
    const builtAt = Math.min(
      ...[entry, ...BUNDLE_WORKERS.map((worker) => path.join(dir, `${worker.name}.cjs`))].map(
        (file) => statSync(file).mtimeMs,
      ),
    );
    const inputs = JSON.parse(readFileSync(path.join(root, BUNDLE_INPUTS), 'utf8'));
    if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
    for (const input of inputs) {
      if (statSync(path.join(root, input)).mtimeMs > builtAt) return undefined;
    }
    return entry;
  } catch {
    // Missing or unreadable: a file the bundle needs, its list, or a source it was made from.
    return undefined;
  }
}
