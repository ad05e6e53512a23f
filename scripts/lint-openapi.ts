import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiJson } from '@/lib/api/openapi';

/**
 * `npm run lint:openapi`: writes the OpenAPI document exactly as the server
 * generates it to a temporary file and lints it with Redocly under
 * redocly.yaml; the exit code is Redocly's. `--out <file>` only writes the
 * document. The server names itself in `servers` by the request's base URL;
 * here a fixed, never-resolvable one (RFC 2606 .invalid) stands in, so the
 * lint does not depend on the shell's PUBLIC_BASE_URL.
 */
const root = path.resolve(import.meta.dirname, '..');
const base = 'https://org-events.invalid';
const json = `${JSON.stringify(JSON.parse(openApiJson(base)), null, 2)}\n`;

const outAt = process.argv.indexOf('--out');
if (outAt !== -1) {
  const out = process.argv[outAt + 1];
  if (!out) throw new Error('--out needs a file name');
  fs.writeFileSync(out, json);
  process.exit(0);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-openapi-'));
const file = path.join(dir, 'openapi.json');
try {
  fs.writeFileSync(file, json);
  const redocly = path.join(root, 'node_modules', '.bin', 'redocly');
  const result = spawnSync(
    redocly,
    ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'codeframe'],
    {
      stdio: 'inherit',
      shell: process.platform === 'win32',
      // A lint needs no network: no usage telemetry, no update or notification checks.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
    },
  );
  if (result.error) throw result.error;
  process.exitCode = result.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
