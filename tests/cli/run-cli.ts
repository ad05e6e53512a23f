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
  return cliWith({ input }, database, ...args);
}

export type CliOptions = {
  input?: string;
  /** Variables set over this process's environment (undefined removes one). */
  env?: Record<string, string | undefined>;
};

/** The same, with stdin and environment of the test's choosing. */
export function cliWith(options: CliOptions, database: string, ...args: string[]): CliResult {
  return run([CLI, ...args, '--database', database], ROOT, options, args.includes('--json'));
}

/**
 * The CLI as `npx org-events` runs it (bin/org-events.mjs), from the
 * directory `cwd`: nothing may depend on being started from the project.
 */
export function cliFrom(cwd: string, database: string, ...args: string[]): CliResult {
  return run(
    [path.join(ROOT, 'bin/org-events.mjs'), ...args, '--database', database],
    cwd,
    {},
    args.includes('--json'),
  );
}

function run(argv: string[], cwd: string, options: CliOptions, json: boolean): CliResult {
  // bin/org-events.mjs loads tsx itself; scripts/cli.ts needs it preloaded.
  const preload = argv[0] === CLI ? ['--import', 'tsx'] : [];
  const result = spawnSync(process.execPath, [...preload, ...argv], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'test', ...options.env },
    timeout: 120_000,
    input: options.input,
  });
  let parsed: unknown;
  if (json) {
    try {
      parsed = JSON.parse(result.stdout);
    } catch {
      throw new Error(
        `--json output is not one JSON document:\n${result.stdout}\n${result.stderr}`,
      );
    }
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json: parsed };
}

/** Starts the CLI without waiting, for tests that interrupt it. */
export function startCli(database: string, ...args: string[]) {
  return spawn(process.execPath, ['--import', 'tsx', CLI, ...args, '--database', database], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
