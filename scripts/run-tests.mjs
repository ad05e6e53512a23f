// Runs every unit and integration test file with node:test (Node 20 has no
// --test globbing), TypeScript loaded through tsx.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['lib', 'components', 'tests'];
const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) walk(full);
    else if (/\.test\.tsx?$/.test(entry)) files.push(full);
  }
};
for (const root of roots) {
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory()) walk(root);
  else if (statSync(root, { throwIfNoEntry: false })) files.push(root);
}
if (files.length === 0) {
  console.error('No test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...files.sort()],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
