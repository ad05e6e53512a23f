// Bundles the admin CLI for `npx org-events` (bin/org-events.mjs): our
// TypeScript in one CommonJS file per thread, with the pure-JavaScript packages
// every command loads (BUNDLED_PACKAGES); the others left to Node.
// Run by `npm run build`.
//
// Why: through tsx every command paid for loading ~250 TypeScript modules
// one by one through its loader hooks: `orgs list` took ~1.0 s, ~0.5 s
// bundled. The bundle is only used while it is newer than every source it
// was made from (bin/cli-bundle.mjs); otherwise the CLI runs through tsx.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_DIR, BUNDLE_INPUTS, BUNDLE_WORKERS } from '../bin/cli-bundle.mjs';

// fileURLToPath: a URL's pathname keeps %20 for a space in the project's path.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Packages bundled in, tree-shaken: required whole, kysely and zod were a
 * third of every command's start (~150 ms of ~0.5 s: each package's index
 * loads every module it has, file by file). The others (native addons, pg,
 * pino and its transport threads, what only some commands load) stay
 * packages that Node loads.
 */
const BUNDLED_PACKAGES = new Set(['kysely', 'zod', 'date-fns', '@date-fns/tz', '@date-fns/utc']);
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const externalPackages = Object.keys({
  ...manifest.dependencies,
  ...manifest.devDependencies,
}).filter((name) => !BUNDLED_PACKAGES.has(name));

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    cli: 'scripts/cli.ts',
    // The bulk load's producing thread (lib/ingest/bulk-load.ts starts it).
    ...Object.fromEntries(BUNDLE_WORKERS.map((worker) => [worker.name, worker.source])),
  },
  outdir: BUNDLE_DIR,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  // CommonJS: a command's modules, imported when it runs (scripts/cli.ts),
  // stay lazy, with the packages they require. ESM output would hoist every
  // package import to the top and load ioredis for `orgs list`.
  format: 'cjs',
  // A package named here is external with its subpaths (pg-copy-streams, date-fns/format).
  external: externalPackages,
  tsconfig: 'tsconfig.json',
  sourcemap: 'linked',
  sourcesContent: false,
  // lib/ingest/bulk-load.ts starts the bundled worker instead of tsx's.
  define: { ORG_EVENTS_BUNDLE: 'true' },
  metafile: true,
  logLevel: 'warning',
  // Written below, each file whole: a CLI started meanwhile loads the old
  // bundle or the new one, never a file half written.
  write: false,
});

/** Replaces `file` at once (a rename), never leaving it half written. */
function replaceFile(file, contents) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

mkdirSync(path.join(root, BUNDLE_DIR), { recursive: true });
// The entry last, so the new one never starts an old worker; between the
// renames (milliseconds) a CLI already started may start a new one.
const entry = path.join(root, BUNDLE_DIR, 'cli.cjs');
const outputs = result.outputFiles.sort((a, b) => (a.path === entry) - (b.path === entry));
for (const output of outputs) replaceFile(output.path, output.contents);

// Besides the sources, what decides how they are bundled and found: the
// `@/` paths of tsconfig.json, the bundle's layout (files staged with the
// release, scripts/release.sh), and the versions of the bundled packages
// (package-lock.json: an installed package's files keep the date npm packed
// them, so their own times say nothing).
const inputs = [
  ...Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/')),
  'tsconfig.json',
  'bin/cli-bundle.mjs',
  'package-lock.json',
].sort();
for (const input of inputs) statSync(path.join(root, input)); // every input is a file of this tree
replaceFile(path.join(root, BUNDLE_INPUTS), `${JSON.stringify(inputs, null, 1)}\n`);
console.log(`CLI bundle: ${BUNDLE_DIR}/ from ${inputs.length} source files`);
