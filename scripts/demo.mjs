// `npm run demo`: from a fresh clone (after npm install) to a running server
// with data and working credentials, in one command.
//
// 1. Builds the app if there is no production build yet (.next/BUILD_ID), or
//    if it was made with other migrations than the code's (a pull added one),
//    which the server refuses to serve, or from another commit (a pull).
// 2. Migrates the store (DATABASE_URL, default ./data/org-events.db) and, if
//    it has no organization, creates "Demo Organization" with ~5,000 events
//    over the last 30 days; makes sure a demo API key (ORG_OWNER) works
//    (scripts/demo-setup.ts; its private key is kept, for the demo only, in
//    demo-credentials.json next to the database: data/, mode 600).
// 3. Prints the URL, the org id, the credentials and a ready-to-paste curl.
// 4. Starts the production server (node --import tsx server.ts) in the
//    foreground, forwarding Ctrl-C / SIGTERM to it.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Through tsx (the package.json script loads it), so the check is the server's own.
import { checkedOutCommit, productionBuildState } from '../lib/api/build-info.ts';
import { MIGRATION_NAMES } from '../lib/store/migrations/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function fail(message) {
  console.error(`[demo] ${message}`);
  process.exit(1);
}

// A build older than the code's migrations once printed the demo key and then
// the server's refusal to start, and one of an older commit showed the
// dashboard as it was before a pull: either is rebuilt first, as a missing one is.
const buildState = productionBuildState(root, MIGRATION_NAMES, checkedOutCommit(root));
if (buildState !== 'current') {
  console.error(
    {
      missing: '[demo] No production build yet: running npm run build (once).',
      stale:
        "[demo] The production build is older than the code's migrations: running npm run build.",
      otherCommit:
        '[demo] The production build is of another commit than the one checked out: running npm run build.',
    }[buildState],
  );
  const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) fail('The build failed; see above.');
}

const setup = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo-setup.ts'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
});
if (setup.status !== 0) fail('Could not prepare the database; see above.');
let demo;
try {
  demo = JSON.parse(setup.stdout.trim().split('\n').pop());
} catch {
  fail(`Unexpected output from scripts/demo-setup.ts: ${setup.stdout}`);
}

/** A path relative to the repository when inside it, absolute otherwise. */
function shown(file) {
  const relative = path.relative(root, file);
  return relative.startsWith('..') ? file : relative;
}

const port = process.env.PORT || '3000';
const base = (process.env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
const lines = [''];
if (demo.orgId) {
  const list = `${base}/api/public/v1.0/orgs/${demo.orgId}/events`;
  lines.push(
    `  org-events demo: ${base}`,
    '',
    `  Organization   ${demo.orgName} (${demo.orgId}), ${demo.events.toLocaleString('en-US')} events`,
    `  Public key     ${demo.publicKey}`,
    `  Private key    ${demo.privateKey}`,
    '',
    '  Sign in to the dashboard with the public and private key above, or call the API:',
    '',
    `  curl --digest -u '${demo.publicKey}:${demo.privateKey}' \\`,
    `    -H 'Accept: application/json' '${list}?itemsPerPage=5&pretty=true'`,
    '',
    `  (Demo convenience: the private key is kept in ${shown(demo.credentialsFile)};`,
    '   real keys are shown once by `npm run cli -- keys create` and never stored.)',
  );
} else {
  lines.push(
    `  org-events: ${base}`,
    '',
    `  The database already holds ${demo.organizations} organization(s), so no demo data was added.`,
    '  Create a key with: npm run cli -- keys create --org ORG_ID --role ORG_OWNER',
  );
}
lines.push('');
console.log(lines.join('\n'));

// The server runs in its own process group, so a Ctrl-C reaches it once (from
// us) rather than twice (terminal and npm both signal this group), and its
// graceful shutdown is not cut short by a second signal.
const server = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PORT: port },
  detached: true,
});
let forwarded = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (forwarded) return;
    forwarded = true;
    server.kill(signal);
  });
}
process.on('exit', () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
});
server.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1));
});
