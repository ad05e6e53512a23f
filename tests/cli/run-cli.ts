import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileSizeLimitArgs } from '../helpers/small-disk';

export const ROOT = path.resolve(__dirname, '../..');
/**
 * `npx org-events`: the CLI's bundle when `npm run build` made it from these
 * sources, else the sources through tsx (bin/cli-bundle.mjs).
 */
export const CLI_BIN = path.join(ROOT, 'bin/org-events.mjs');

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
  /** Run from this directory (the CLI must not depend on being started from the project). */
  cwd?: string;
  /** No file written past this many bytes (RLIMIT_FSIZE: tests/helpers/small-disk.ts). */
  fileSizeLimit?: number;
};

/** The same, with stdin, environment and directory of the test's choosing; no --database if undefined. */
export function cliWith(
  options: CliOptions,
  database: string | undefined,
  ...args: string[]
): CliResult {
  const argv = [...args, ...(database === undefined ? [] : ['--database', database])];
  const [command, commandArgs] =
    options.fileSizeLimit === undefined
      ? [process.execPath, [CLI_BIN, ...argv]]
      : fileSizeLimitArgs(options.fileSizeLimit, process.execPath, [CLI_BIN, ...argv]);
  const result = spawnSync(command, commandArgs, {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'test', ...options.env },
    timeout: 120_000,
    input: options.input,
  });
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

/** The CLI run from the directory `cwd`: nothing may depend on being started from the project. */
export function cliFrom(cwd: string, database: string, ...args: string[]): CliResult {
  return cliWith({ cwd }, database, ...args);
}

/** Starts the CLI without waiting, for tests that interrupt it. */
export function startCli(database: string, ...args: string[]) {
  return spawn(process.execPath, [CLI_BIN, ...args, '--database', database], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
