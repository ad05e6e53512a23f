import { DATE_TIME_FORMS, parseDateTime } from '@/lib/domain/dates';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_RECORD_BYTES_LIMIT, PUBLIC_KEY_PATTERN } from '@/lib/domain/limits';
import { isObjectId } from '@/lib/domain/object-id';
import { ORG_ROLES, type OrgRole } from '@/lib/store/types';
import { hasUnprintable } from '@/lib/domain/printable';

/** Exit codes, documented in `cli help`. */
export const EXIT = {
  ok: 0,
  /** The command failed: something not found, a database error, an unreadable file. */
  failed: 1,
  /** Import finished, but some records were invalid and skipped. */
  someInvalid: 2,
  /** The command line itself is wrong (BSD sysexits EX_USAGE). */
  usage: 64,
  /** Stopped on request (SIGINT, SIGTERM) before the end, what was done kept: 128 + SIGINT, as a shell reports Ctrl-C. */
  interrupted: 130,
  /** Whatever read stdout stopped reading (`| head`): 128 + SIGPIPE, as the shell reports Unix tools ended by it. */
  readerGone: 141,
} as const;

/** A problem with the command line: reported with a hint, exit code 64. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A problem running the command: reported as is, exit code 1 (or `exitCode`). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options whose value is a secret (the mirror's source key): never shown in a message. */
const SECRET_OPTIONS = new Set(['private-key']);

/** Strict parsing: unknown options and missing values are usage errors. */
export function parseCommand<T extends Options>(
  args: string[],
  options: T,
  positionals: { min: number; max: number; names: string },
) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? cleanParseError(error.message) : String(error));
  }
  // parseArgs keeps the last of a repeated single-value option; the API keeps
  // the first. Neither is what was meant: two different values are refused.
  // Multi-value options (the filters) are lists, and repeat by design.
  const given = new Map<string, string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    if (options[token.name]?.multiple) continue;
    const earlier = given.get(token.name);
    if (earlier !== undefined && earlier !== token.value) {
      // A secret's values are not repeated back: the message goes to the
      // terminal, the --json document and whatever logs a job's output.
      const values = SECRET_OPTIONS.has(token.name)
        ? 'with different values'
        : `('${earlier}' and '${token.value}')`;
      throw new UsageError(`Option '--${token.name}' is given twice ${values}; give it once`);
    }
    given.set(token.name, token.value);
  }
  const count = parsed.positionals.length;
  if (count < positionals.min) throw new UsageError(`Missing ${positionals.names}`);
  if (count > positionals.max)
    throw new UsageError(unexpectedArgument(parsed.tokens, positionals.max));
  return parsed;
}

/** Options whose value is a key: what follows one may be the rest of a pasted pair. */
const KEY_OPTIONS = new Set(['public-key', 'private-key', 'key']);

/** A private key's form (randomUUID, as the real service's): never quoted back. */
const PRIVATE_KEY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/**
 * The usage error for the first argument past the `allowed`: quoted, to say
 * which one, unless it may be a key. A private key pasted after the public
 * one (`--public-key PUB PRIV`) was printed on stderr and in the --json
 * document, which a job's log keeps.
 */
function unexpectedArgument(tokens: Token[], allowed: number): string {
  const at = tokens.filter((token) => token.kind === 'positional')[allowed]!;
  // An optional part of a usage line pasted with its brackets ('[--since
  // DATE]', as docs/cli.md's usage lines write them): no key opens with '[-',
  // and after --public-key it read as a pasted key.
  if (at.value.startsWith('[-')) {
    return `Unexpected argument '${at.value}': square brackets in a usage line mark an optional part; type it without them, or leave it out`;
  }
  const before = tokens[tokens.indexOf(at) - 1];
  if (before?.kind === 'option' && before.value !== undefined && KEY_OPTIONS.has(before.name)) {
    return `Unexpected argument after --${before.name}'s value (not shown: it may be a key)`;
  }
  if (PRIVATE_KEY_SHAPE.test(at.value)) {
    return 'Unexpected argument shaped like a private key (not shown)';
  }
  return `Unexpected argument '${at.value}'`;
}

function cleanParseError(message: string): string {
  // node:util's messages end with a hint about "--" that does not apply here.
  return message.replace(/\. To specify a positional argument.*$/s, '').trim();
}

export function requireOption(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`);
  return value;
}

/** The longest organization name the CLI accepts. */
export const MAX_ORG_NAME = 64;

/**
 * An organization's name, trimmed: required, one line of at most
 * MAX_ORG_NAME characters (code points: a name of emoji was refused at half
 * the length). One check for every command that creates an organization
 * (orgs create, seed --create-org).
 */
export function parseOrgName(value: string | undefined, flag = '--name'): string {
  const name = requireOption(value, flag).trim();
  if ([...name].length > MAX_ORG_NAME) {
    throw new UsageError(`${flag} must be at most ${MAX_ORG_NAME} characters`);
  }
  // A tab, a line break or a right-to-left override was stored as given, and
  // every list and page showing the name showed it escaped, broken over
  // lines or turned around.
  if (hasUnprintable(name)) {
    throw new UsageError(
      `${flag} must be one line of visible characters (no tab, line break, control, bidirectional or zero-width character)`,
    );
  }
  return name;
}

export function parseObjectId(value: string, flag: string): string {
  if (!isObjectId(value)) {
    throw new UsageError(`${flag} must be 24 lowercase hexadecimal digits, got '${value}'`);
  }
  return value;
}

/**
 * `value`, written as `spelled` spells it, as one of `choices`; else a
 * usage error naming them all: a mistyped one would otherwise act as none.
 */
export function parseChoice<T extends string>(
  value: string,
  flag: string,
  choices: readonly T[],
  spelled: (value: string) => string,
): T {
  const choice = spelled(value);
  if (!(choices as readonly string[]).includes(choice)) {
    throw new UsageError(`${flag} must be one of ${choices.join(', ')}; got '${value}'`);
  }
  return choice as T;
}

export function parseRole(value: string): OrgRole {
  return parseChoice(value, '--role', ORG_ROLES, (role) => role.toUpperCase());
}

export function parsePublicKey(value: string): string {
  if (!PUBLIC_KEY_PATTERN.test(value)) {
    throw new UsageError(`--key must be a public key (8 lowercase letters), got '${value}'`);
  }
  return value;
}

/** --max-record-bytes (import, mirror): 1 KiB to 256 MiB, as IMPORT_MAX_RECORD_BYTES. */
export function parseMaxRecordBytes(value: string): number {
  return parseCount(value, '--max-record-bytes', 1024, MAX_RECORD_BYTES_LIMIT);
}

/** A whole number in [min, max]; "1_000_000" and "1,000,000" are accepted. */
export function parseCount(value: string, flag: string, min: number, max: number): number {
  const digits = value.replace(/[_,]/g, '');
  const number = /^\d+$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(
      `${flag} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, got '${value}'`,
    );
  }
  return number;
}

/** A UTC instant, read by the one date parser the API and imports use too. */
export function parseDate(value: string, flag: string): number {
  const millis = parseDateTime(value);
  if (millis === null) throw new UsageError(`${flag} must be ${DATE_TIME_FORMS}, got '${value}'`);
  return millis;
}
