import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'scripts/cli.ts');

export type CliResult = { code: number; stdout: string; stderr: string; json: unknown };

/** Runs the CLI as users do (a separate process), against the given database. */
export function cli(database: string, ...args: string[]): CliResult {
  return cliWithInput(database, undefined, ...args);
}

/** The same, with text on its standard input. */
export function cliWithInput(
  database: string,
  input: string | undefined,
  ...args: string[]
): CliResult {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', CLI, ...args, '--database', database],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'test' },
      timeout: 120_000,
      input,
    },
  );
  let json: unknown;
  if (args.includes('--json')) {
    try {
      json = JSON.parse(result.stdout);
    } catch {
      throw new Error(
        `--json output is not one JSON document:\n${result.stdout}\n${result.stderr}`,
      );
    }
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json };
}

/** Starts the CLI without waiting, for tests that interrupt it. */
export function startCli(database: string, ...args: string[]) {
  return spawn(process.execPath, ['--import', 'tsx', CLI, ...args, '--database', database], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
