import { errorMessage } from '@/lib/domain/errors';
import fs from 'node:fs';
import path from 'node:path';
import { issueApiKey } from '@/lib/auth/api-keys';
import { reencryptAllHa1 } from '@/lib/auth/ha1-at-rest';
import { secretSource } from '@/lib/auth/secrets';
import { ConfigError, getConfig } from '@/lib/config';
import { newObjectId } from '@/lib/domain/object-id';
import { isDiskFull, StoreUnavailableError } from '@/lib/store/errors';
import type { ApiKeyRecord, EventStore, Membership } from '@/lib/store/types';
import {
  CommandError,
  EXIT,
  parseCommand,
  parseObjectId,
  parseOrgName,
  parsePublicKey,
  parseRole,
  requireOption,
  UsageError,
} from './args';
import { type Command, type CommandContext, isoTime, partialFileBeside, table } from './context';
import { formatBytes, formatCount, jsonSeconds } from './progress';

// ---- migrate -----------------------------------------------------------------

export const migrate: Command = async (args, context) => {
  parseCommand(args, {}, { min: 0, max: 0, names: '' });
  // Opening the store applies every pending migration.
  const { appliedAtOpen: applied } = await context.store();
  context.say(
    applied.length === 0
      ? 'The database was up to date: no migration to apply.'
      : `Applied ${formatCount(applied.length, 'migration')} (${applied[0]}${applied.length > 1 ? ` to ${applied.at(-1)}` : ''}): the database is up to date.`,
  );
  context.emit({ migrated: true, applied });
  return EXIT.ok;
};

// ---- backup --------------------------------------------------------------------

/**
 * `backup --out FILE`: a consistent copy of a SQLite store, taken while the
 * servers go on serving (SqliteStore.backupInto). Written under a temporary
 * name beside FILE and renamed when complete, so FILE is never half a copy;
 * an existing FILE is left alone. PostgreSQL has pg_dump for this.
 */
export const backup: Command = async (args, context) => {
  const { values } = parseCommand(args, { out: { type: 'string' } }, { min: 0, max: 0, names: '' });
  const target = requireOption(values.out, '--out');
  // Not stdout, as for events export: SQLite copies into a file it can open.
  if (target === '-') {
    throw new UsageError(
      '--out - (stdout) cannot take a backup: SQLite writes the copy into a file; name one (./- for a file so named)',
    );
  }
  const store = await context.store();
  // Loaded here: the other commands of this module never need the engine's class.
  const { SqliteStore } = await import('@/lib/store/sqlite');
  if (!(store instanceof SqliteStore)) {
    throw new CommandError(
      'backup copies a SQLite store; back up PostgreSQL with pg_dump (see Backups in the README)',
    );
  }
  const exists = () => new CommandError(`${target} already exists: nothing was written`);
  // A link to nothing counts too (lstat, not existsSync, which follows it): the link below refuses it.
  if (hasEntry(target)) throw exists();
  const temporary = partialFileBeside(target);
  const started = performance.now();
  // Created here, empty, owner-only: the copy keeps this mode and holds the key hashes.
  try {
    fs.closeSync(fs.openSync(temporary, 'wx', 0o600));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CommandError(`Cannot write in ${path.dirname(path.resolve(target))} (${reason})`);
  }
  // The copy and the journal SQLite writes beside it while copying.
  const removePartial = () => {
    for (const file of [temporary, `${temporary}-journal`]) fs.rmSync(file, { force: true });
  };
  // Stopped by a signal, it removes its partial copy (it stayed behind, as
  // large as the database and holding the key hashes). The copy is one call
  // on another thread that nothing cuts short, and no exit happens while it
  // runs: the signal, its handler gone, ends the process as it would have
  // (130 for Ctrl-C, 143 for SIGTERM, as a shell reports them).
  const onSignal = (signal: NodeJS.Signals) => {
    removePartial();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    const message = 'Backup stopped: its partial copy was removed, nothing was written';
    context.note(message);
    context.emit({ error: { code: 'failed', message, exitCode: EXIT.interrupted } });
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    try {
      await store.backupInto(temporary);
    } catch (error) {
      throw backupFailure(target, error);
    }
    // A link refuses an existing name, where a rename would replace a file
    // that appeared meanwhile.
    try {
      fs.linkSync(temporary, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw exists();
      throw new CommandError(`Cannot write ${target} (${code ?? String(error)})`);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    removePartial();
  }
  const bytes = fs.statSync(target).size;
  const seconds = (performance.now() - started) / 1000;
  context.say(
    `Backed up the database (${formatBytes(bytes)}) to ${target} in ${seconds.toFixed(1)} s.`,
  );
  context.emit({ file: target, bytes, seconds: jsonSeconds(seconds) });
  return EXIT.ok;
};

/**
 * A copy that failed, said as the copy's failure: the store's own wording
 * ("The database cannot write: its disk is full") named the database where
 * the disk short of space was the one FILE is on.
 */
function backupFailure(target: string, error: unknown): CommandError {
  const engine = error instanceof StoreUnavailableError && error.cause ? error.cause : error;
  const detail = errorMessage(engine);
  return new CommandError(
    isDiskFull(error)
      ? `Cannot write ${target}: no space left on its disk (${detail}); nothing was written`
      : `Backup to ${target} failed (${detail}): nothing was written`,
  );
}

/** Whether anything, a link to nothing included, has this name. */
function hasEntry(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

// ---- orgs ----------------------------------------------------------------------

export const orgs: Command = async (args, context) => {
  const [sub, ...rest] = args;
  if (sub === 'create') return createOrg(rest, context);
  if (sub === 'list') return listOrgs(rest, context);
  throw new UsageError(
    sub ? `Unknown command 'orgs ${sub}'` : "Missing 'orgs create' or 'orgs list'",
  );
};

async function createOrg(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(
    args,
    { name: { type: 'string' }, id: { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  const name = parseOrgName(values.name);
  const id = values.id === undefined ? newObjectId() : parseObjectId(values.id, '--id');
  const store = await context.store();
  if (await store.getOrg(id))
    throw new CommandError(`An organization with id ${id} already exists`);
  const org = await store.createOrg({ id, name, created: Date.now() });
  context.say(`Created organization "${org.name}" with id ${org.id}`);
  context.emit({ id: org.id, name: org.name, created: isoTime(org.created) });
  return EXIT.ok;
}

async function listOrgs(args: string[], context: CommandContext): Promise<number> {
  parseCommand(args, {}, { min: 0, max: 0, names: '' });
  const store = await context.store();
  const all = await store.listOrgs();
  const rows = await Promise.all(
    all.map(async (org) => ({
      id: org.id,
      name: org.name,
      created: isoTime(org.created),
      events: await store.countEvents({ orgId: org.id }),
    })),
  );
  context.emit(rows);
  context.say(
    rows.length === 0
      ? "No organizations yet. Create one with 'orgs create --name NAME'."
      : table(
          ['ID', 'NAME', 'EVENTS', 'CREATED'],
          rows.map((r) => [r.id, r.name, r.events.toLocaleString('en-US'), r.created]),
        ),
  );
  return EXIT.ok;
}

// ---- keys ------------------------------------------------------------------------

export const keys: Command = async (args, context) => {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create':
      return createKey(rest, context);
    case 'grant':
      return grantKey(rest, context);
    case 'list':
      return listKeys(rest, context);
    case 'revoke':
      return revokeKey(rest, context);
    case 'rehash':
      return rehashKeys(rest, context);
    case 'rotate':
      // Loaded here: it brings the shared auth state's Redis client, which no other command needs.
      return (await import('./keys-rotate')).rotateKey(rest, context);
    default:
      throw new UsageError(
        sub
          ? `Unknown command 'keys ${sub}'`
          : "Missing 'keys create|grant|list|revoke|rotate|rehash'",
      );
  }
};

async function requireOrg(store: EventStore, orgId: string): Promise<void> {
  if (!(await store.getOrg(orgId))) {
    throw new CommandError(
      `No organization with id ${orgId}. List them with 'orgs list' or create one with 'orgs create'.`,
    );
  }
}

async function requireKey(store: EventStore, publicKey: string): Promise<ApiKeyRecord> {
  const key = await store.getApiKeyByPublicKey(publicKey);
  if (!key) throw new CommandError(`No API key with public key ${publicKey}`);
  return key;
}

async function createKey(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(
    args,
    { org: { type: 'string' }, role: { type: 'string' }, description: { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  const orgId = parseObjectId(requireOption(values.org, '--org'), '--org');
  const role = parseRole(requireOption(values.role, '--role'));
  const description = (values.description ?? '').trim();
  if (description.length > 250)
    throw new UsageError('--description must be at most 250 characters');
  const store = await context.store();
  await requireOrg(store, orgId);
  const realm = getConfig().DIGEST_REALM;
  const { record, privateKey } = await issueApiKey(store, { orgId, role, description, realm });
  context.emit({
    id: record.id,
    publicKey: record.publicKey,
    privateKey,
    orgId,
    role,
    description: record.description,
    realm,
    created: isoTime(record.created),
  });
  context.say(
    [
      `Created API key ${record.publicKey} with role ${role} in organization ${orgId}.`,
      '',
      `  Public key:   ${record.publicKey}`,
      `  Private key:  ${privateKey}`,
      `  Key id:       ${record.id}`,
      '',
    ].join('\n'),
  );
  context.note(
    'The private key is shown only now: it is not stored (only a hash is), so it cannot be shown again.',
  );
  return EXIT.ok;
}

async function grantKey(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(
    args,
    { key: { type: 'string' }, org: { type: 'string' }, role: { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  const publicKey = parsePublicKey(requireOption(values.key, '--key'));
  const orgId = parseObjectId(requireOption(values.org, '--org'), '--org');
  const role = parseRole(requireOption(values.role, '--role'));
  const store = await context.store();
  const key = await requireKey(store, publicKey);
  await requireOrg(store, orgId);
  await store.grantRole({ orgId, apiKeyId: key.id, role, created: Date.now() });
  context.say(`Granted ${role} in organization ${orgId} to API key ${publicKey}.`);
  context.emit({ publicKey, apiKeyId: key.id, orgId, role });
  return EXIT.ok;
}

async function listKeys(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(args, { org: { type: 'string' } }, { min: 0, max: 0, names: '' });
  const orgId = values.org === undefined ? undefined : parseObjectId(values.org, '--org');
  const store = await context.store();
  if (orgId !== undefined) await requireOrg(store, orgId);
  const records = await store.listApiKeys(orgId);
  const rows = await Promise.all(
    records.map(async (key) => {
      const memberships: Membership[] = await store.listMemberships(key.id);
      return {
        // Never the HA1 values: they are password-equivalent for Digest.
        id: key.id,
        publicKey: key.publicKey,
        description: key.description,
        disabled: key.disabled,
        realm: key.realm,
        created: isoTime(key.created),
        roles: memberships
          .filter((m) => orgId === undefined || m.orgId === orgId)
          .map((m) => ({ orgId: m.orgId, role: m.role })),
      };
    }),
  );
  context.emit(rows);
  context.say(
    rows.length === 0
      ? 'No API keys.'
      : table(
          ['PUBLIC KEY', 'ID', 'STATUS', 'ROLES', 'DESCRIPTION'],
          rows.map((r) => [
            r.publicKey,
            r.id,
            r.disabled ? 'revoked' : 'active',
            r.roles.map((m) => (orgId === undefined ? `${m.orgId}:${m.role}` : m.role)).join(', '),
            r.description,
          ]),
        ),
  );
  return EXIT.ok;
}

async function revokeKey(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(args, { key: { type: 'string' } }, { min: 0, max: 0, names: '' });
  const publicKey = parsePublicKey(requireOption(values.key, '--key'));
  const store = await context.store();
  await requireKey(store, publicKey);
  await store.setApiKeyDisabled(publicKey, true);
  context.say(`Revoked API key ${publicKey}: it can no longer authenticate.`);
  context.emit({ publicKey, disabled: true });
  return EXIT.ok;
}

/**
 * Encrypts every stored HA1 value with the key derived from the configured
 * secret, ORG_EVENTS_SECRET or a SQLite database's secret file (plain
 * values from before it was set, and values sealed under
 * ORG_EVENTS_PREVIOUS_SECRET after a rotation), so a copy of the database
 * alone grants nothing.
 */
async function rehashKeys(args: string[], context: CommandContext): Promise<number> {
  parseCommand(args, {}, { min: 0, max: 0, names: '' });
  const { ORG_EVENTS_PREVIOUS_SECRET } = getConfig();
  // The environment lacks it, not the command line: a configuration error
  // (exit 1, "config" under --json), as the help's exit codes say.
  const store = await context.store();
  if (secretSource(store).kind === 'database') {
    throw new ConfigError(
      'keys rehash needs ORG_EVENTS_SECRET (at least 32 characters): the secret to encrypt with',
    );
  }
  const report = await reencryptAllHa1(
    store,
    async (key, values) => {
      await store.setApiKeyHa1(key.id, values);
    },
    { previousSecrets: ORG_EVENTS_PREVIOUS_SECRET ? [ORG_EVENTS_PREVIOUS_SECRET] : [] },
  );
  context.emit(report);
  context.say(
    `Encrypted ${report.sealed.length} key(s), re-encrypted ${report.resealed.length}` +
      (report.unreadable.length
        ? `; ${report.unreadable.length} sealed with an unknown secret left as they are: ${report.unreadable.join(', ')}`
        : '.'),
  );
  return report.unreadable.length ? EXIT.failed : EXIT.ok;
}
