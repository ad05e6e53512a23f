// Captures what the service version header reports: the git commit being
// built and the package version. Runs before `next build`; the output
// (lib/build-info.json) is git-ignored and read at run time by lib/api.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function gitHash() {
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

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// The migrations this build bundles: a server started from newer code refuses
// to serve the dashboard from an older build (lib/api/build-info.ts).
const migrations = readdirSync(path.join(root, 'lib', 'store', 'migrations'))
  .filter((name) => /^\d{4}_.+\.ts$/.test(name) && !name.endsWith('.test.ts'))
  .map((name) => name.slice(0, -'.ts'.length))
  .sort();
const info = { gitHash: gitHash(), version: String(version), migrations };
writeFileSync(path.join(root, 'lib', 'build-info.json'), `${JSON.stringify(info, null, 2)}\n`);
console.log(`build info: gitHash=${info.gitHash}; versionString=${info.version}`);
