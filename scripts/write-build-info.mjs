// Captures what the service version header reports (the git commit being
// built and the package version) and the store migrations the build bundles.
// Runs before `next build`; the output (lib/build-info.json) is git-ignored
// and read at run time by lib/api.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// fileURLToPath: a URL's pathname keeps %20 for a space in the project's path.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// The migrations this build bundles, from the list the migrator itself uses:
// a server started from newer code refuses to serve the dashboard from an
// older build (lib/api/build-info.ts). Run with tsx (`npm run build`).
const { MIGRATION_NAMES } = await import('../lib/store/migrations/index.ts');
const migrations = [...MIGRATION_NAMES];
const { checkedOutCommit } = await import('../lib/api/build-info.ts');
const info = { gitHash: checkedOutCommit(root), version: String(version), migrations };
writeFileSync(path.join(root, 'lib', 'build-info.json'), `${JSON.stringify(info, null, 2)}\n`);
console.log(`build info: gitHash=${info.gitHash}; versionString=${info.version}`);
