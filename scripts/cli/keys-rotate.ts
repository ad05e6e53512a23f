import { randomUUID } from 'node:crypto';
import { storedHa1s } from '@/lib/auth/api-keys';
import { assertSealedLikeStoredKeys } from '@/lib/auth/ha1-at-rest';
import { signOutEverywhere } from '@/lib/auth/session';
import { createRedisAuthState } from '@/lib/auth/redis-state';
import { adoptAuthState } from '@/lib/auth/shared-state';
import { getConfig } from '@/lib/config';
import { ApiError } from '@/lib/domain/errors';
import { CommandError, EXIT, parseCommand, parsePublicKey, requireOption } from './args';
import type { CommandContext } from './context';

/**
 * `keys rotate --key PUBLIC_KEY`: a new private key for the same key (same
 * public key, id and roles), printed once. Only the HA1 values are stored
 * and every request reads them afresh (no instance caches a key), so the old
 * private key is refused from the next request on, by Digest and by sign-in.
 * Dashboard sessions signed in with the old key are ended too, on every
 * instance when they share Redis (REDIS_URL); without Redis, sign-outs live
 * in each server's memory, which this process cannot reach.
 */
export async function rotateKey(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(args, { key: { type: 'string' } }, { min: 0, max: 0, names: '' });
  const publicKey = parsePublicKey(requireOption(values.key, '--key'));
  const store = await context.store();
  const record = await store.getApiKeyByPublicKey(publicKey);
  if (!record) throw new CommandError(`No API key with public key ${publicKey}`);
  // A revoked key stays revoked: a new private key for it would be refused too.
  if (record.disabled) {
    throw new CommandError(
      `API key ${publicKey} is revoked: a rotated key would still be refused. Issue a new one with 'keys create'.`,
    );
  }
  await assertSealedLikeStoredKeys(store);
  const privateKey = randomUUID();
  const redisUrl = getConfig().REDIS_URL;
  const sessionsEnded = redisUrl !== undefined;
  // The sessions are ended through a Redis client of this command's own,
  // which leaves an outage to endSessions' message: the server's outage log
  // line, a JSON object with a stack, came out beside it on stderr.
  const redis = redisUrl ? createRedisAuthState({ url: redisUrl, logOutages: false }) : undefined;
  adoptAuthState(redis);
  let lateSessionsEnded = true;
  try {
    // Sessions end first: when Redis cannot record that, nothing has changed
    // yet. Rotating first lost the key: the new one was never printed, as
    // the command failed after the old one had been replaced.
    if (sessionsEnded) await endSessions(record.id, 'the key was not rotated');
    const updated = await store.setApiKeyHa1(
      record.id,
      storedHa1s(store, record.id, publicKey, record.realm, privateKey),
    );
    if (!updated) throw new CommandError(`No API key with public key ${publicKey}`);
    // And again: a sign-in with the old key may have come in between.
    if (sessionsEnded) {
      lateSessionsEnded = await endSessions(record.id, '').then(
        () => true,
        () => false,
      );
    }
  } finally {
    // An unreachable Redis keeps reconnecting, and the process alive, until closed.
    await redis?.close();
    adoptAuthState(undefined);
  }
  context.emit({ publicKey, apiKeyId: record.id, privateKey, sessionsEnded });
  context.say(
    [
      `Rotated API key ${publicKey}: the old private key is refused from now on.`,
      '',
      `  Public key:   ${publicKey}`,
      `  Private key:  ${privateKey}`,
      '',
      'The private key is shown only this once; store it now.',
      sessionsEnded
        ? 'Dashboard sessions signed in with this key have been ended.'
        : 'Dashboard sessions signed in with the old key last until they expire (set REDIS_URL to end them at once).',
      ...(lateSessionsEnded
        ? []
        : [
            'Warning: Redis stopped answering after the rotation; a dashboard sign-in with the old key made during it may last until it expires.',
          ]),
    ].join('\n'),
  );
  return EXIT.ok;
}

/** Every dashboard session of the key ends, on every instance sharing Redis; an operator's message if not. */
async function endSessions(apiKeyId: string, consequence: string): Promise<void> {
  try {
    await signOutEverywhere(apiKeyId);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'SERVICE_UNAVAILABLE') throw error;
    // The error is the API's 503 text; an operator needs what it means here.
    throw new CommandError(
      `Could not end the key's dashboard sessions: Redis (REDIS_URL) did not answer${consequence ? `; ${consequence}` : ''}. Retry when Redis answers.`,
    );
  }
}
