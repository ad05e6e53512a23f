import { randomUUID } from 'node:crypto';
import { storedHa1s } from '@/lib/auth/api-keys';
import { signOutEverywhere } from '@/lib/auth/session';
import { getAuthState } from '@/lib/auth/shared-state';
import { getConfig } from '@/lib/config';
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
  const privateKey = randomUUID();
  const updated = await store.setApiKeyHa1(
    record.id,
    storedHa1s(record.id, publicKey, record.realm, privateKey),
  );
  if (!updated) throw new CommandError(`No API key with public key ${publicKey}`);
  const sessionsEnded = getConfig().REDIS_URL !== undefined;
  if (sessionsEnded) {
    await signOutEverywhere(record.id);
    await getAuthState().close();
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
    ].join('\n'),
  );
  return EXIT.ok;
}
