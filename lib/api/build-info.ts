import fs from 'node:fs';
import path from 'node:path';

export type BuildInfo = { gitHash: string; version: string };

let cached: BuildInfo | undefined;

/**
 * The git hash and version captured by `npm run build`
 * (scripts/write-build-info.mjs writes lib/build-info.json). Read from disk
 * at run time, not imported, so unit tests and type checks work without a
 * build; missing or malformed, it degrades to "unknown".
 */
export function getBuildInfo(): BuildInfo {
  if (cached) return cached;
  const fromFile = readJson(path.join(process.cwd(), 'lib', 'build-info.json'));
  const fromPackage = readJson(path.join(process.cwd(), 'package.json'));
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
  cached = { gitHash, version };
  return cached;
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(/* turbopackIgnore: true */ file, 'utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
