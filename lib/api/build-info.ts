import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type BuildInfo = {
  gitHash: string;
  version: string;
  /** The store migrations the build bundles (null: a build that did not record them). */
  migrations: readonly string[] | null;
};

let cached: BuildInfo | undefined;

/**
 * The git hash and version captured by `npm run build`
 * (scripts/write-build-info.mjs writes lib/build-info.json). Read from disk
 * at run time, not imported, so unit tests and type checks work without a
 * build; missing or malformed, it degrades to "unknown".
 */
export function getBuildInfo(): BuildInfo {
  cached ??= buildInfoAt(process.cwd());
  return cached;
}

/** The build information of the project at `root` (getBuildInfo's, uncached). */
function buildInfoAt(root: string): BuildInfo {
  const fromFile = readJson(path.join(root, 'lib', 'build-info.json'));
  const fromPackage = readJson(path.join(root, 'package.json'));
  const gitHash =
    typeof fromFile?.gitHash === 'string' && /^[0-9a-f]{40}$/.test(fromFile.gitHash)
      ? fromFile.gitHash
      : 'unknown';
  const version =
    typeof fromFile?.version === 'string'
      ? fromFile.version
      : typeof fromPackage?.version === 'string'
        ? fromPackage.version
        : 'unknown';
  const migrations =
    Array.isArray(fromFile?.migrations) &&
    fromFile.migrations.every((name): name is string => typeof name === 'string')
      ? fromFile.migrations
      : null;
  return { gitHash, version, migrations };
}

/**
 * Why the dashboard's build cannot serve this code, or null. Next serves
 * the build's bundled copy of lib/, while the API and the migrator run the
 * code itself: after a pull that adds a migration, an old build would meet a
 * schema it does not know and answer every page with a 500.
 */
export function staleBuildReason(
  built: readonly string[] | null,
  current: readonly string[],
): string | null {
  if (built === null || built.join('\n') === current.join('\n')) return null;
  const newest = (names: readonly string[]) => names[names.length - 1] ?? 'none';
  return `The dashboard build (.next) does not match this code: it was built with migrations through ${newest(built)}, the code has ${newest(current)} (${current.length} in all). Run \`npm run build\` (or start with SERVE=api).`;
}

/**
 * Whether the project at `root` has a production build this code can serve:
 * `missing` (no .next/BUILD_ID), `stale` (made with other migrations than
 * `migrations`: staleBuildReason, which the server refuses to start with),
 * `otherCommit` (made from another commit than `head`, the checkout's: the
 * server would start, but show the dashboard as it was before a pull) or
 * `current`. `npm run demo` builds when it is not `current`. A build or a
 * checkout whose commit is unknown (no git) is judged by its migrations.
 */
export function productionBuildState(
  root: string,
  migrations: readonly string[],
  head: string,
): 'missing' | 'stale' | 'otherCommit' | 'current' {
  if (!fs.existsSync(/* turbopackIgnore: true */ path.join(root, '.next', 'BUILD_ID')))
    return 'missing';
  const built = buildInfoAt(root);
  if (staleBuildReason(built.migrations, migrations) !== null) return 'stale';
  if (built.gitHash !== 'unknown' && head !== 'unknown' && built.gitHash !== head) {
    return 'otherCommit';
  }
  return 'current';
}

/** The commit checked out at `root` (what a build records), or "unknown" outside git. */
export function checkedOutCommit(root: string): string {
  try {
    const hash = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return /^[0-9a-f]{40}$/.test(hash) ? hash : 'unknown';
  } catch {
    return 'unknown'; // not a git checkout (e.g. a source tarball)
  }
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(/* turbopackIgnore: true */ file, 'utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
