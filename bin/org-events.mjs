#!/usr/bin/env node
// `npx org-events <command>`: the admin CLI (scripts/cli.ts) in this very
// process, so there is no npm banner on stdout (`--json | jq` works), and a
// signal sent to this pid (`kill -INT`, a container's SIGTERM to PID 1 when
// started as `node bin/org-events.mjs`) reaches the command's own handlers.
// Started by npx, it runs under npm's `sh -c`, which does not pass a SIGTERM
// to npm on: scripts/cli/parent-watch.ts stops the command when that shell goes.
//
// From its bundle (`npm run build` makes it) while that is up to date with
// the sources, else from the sources through tsx's loader (what
// `node --import tsx` does): the same code, the bundle starts in half the time.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshCliBundle } from './cli-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const bundle = freshCliBundle(root);
if (bundle) {
  // With DEBUG (which prints an unexpected error's stack), the stack names
  // the TypeScript sources, through the bundle's source maps.
  if (process.env.DEBUG) process.setSourceMapsEnabled(true);
  require(bundle);
} else {
  // The project's path aliases (@/lib/...) whatever the working directory, and
  // whatever tsconfig an enclosing tsx run left in the environment.
  process.env.TSX_TSCONFIG_PATH = path.join(root, 'tsconfig.json');
  await import(pathToFileURL(require.resolve('tsx', { paths: [root] })).href);
  await import(pathToFileURL(path.join(root, 'scripts', 'cli.ts')).href);
}
