import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { ApiError, serviceUnavailable } from '@/lib/domain/errors';
import { memoryAuthState, type AuthState } from './shared-state';
import { remoteAuthState, serveAuthState } from './thread-auth-state';

/**
 * The worker's AuthState is the main thread's, through a MessagePort (both
 * ends in this thread here: the messages are structured-cloned all the same).
 */
function connected(state: AuthState) {
  const channel = new MessageChannel();
  serveAuthState(channel.port1, () => state);
  const remote = remoteAuthState(channel.port2, state.kind);
  return { remote, close: () => channel.port1.close() };
}

describe('lib/auth/thread-auth-state', () => {
  test('a session revoked through the remote state is revoked in the served one', async () => {
    const state = memoryAuthState();
    const { remote, close } = connected(state);
    try {
      const session = { sessionId: `thread-${Date.now()}`, apiKeyId: 'k-thread', issuedAt: 1 };
      assert.equal(await remote.revocations.isRevoked(session), false);
      await remote.revocations.revoke(session.sessionId, Date.now() + 60_000);
      assert.equal(await state.revocations.isRevoked(session), true);
      assert.equal(await remote.revocations.isRevoked(session), true);
    } finally {
      close();
    }
  });

  test('a nonce count accepted on one side is a replay on the other', async () => {
    const state = memoryAuthState();
    const { remote, close } = connected(state);
    try {
      const nonce = `thread-nonce-${Date.now()}`;
      const issuedAt = Date.now();
      assert.equal(await remote.nonceCounts.accept(nonce, issuedAt, 1, 300), 'ok');
      assert.equal(await state.nonceCounts.accept(nonce, issuedAt, 1, 300), 'replay');
    } finally {
      close();
    }
  });

  test('an ApiError thrown by the served state arrives as one, with its headers', async () => {
    const failing: AuthState = {
      ...memoryAuthState(),
      throttle: {
        check: () => Promise.reject(serviceUnavailable('Redis is not answering', 2)),
        recordFailure: () => Promise.reject(new Error('boom')),
        recordSuccess: () => Promise.resolve(),
      },
    };
    const { remote, close } = connected(failing);
    try {
      await assert.rejects(remote.throttle.check(['k']), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'SERVICE_UNAVAILABLE');
        assert.equal(error.status, 503);
        assert.deepEqual(error.headers, [['Retry-After', '2']]);
        return true;
      });
      await assert.rejects(remote.throttle.recordFailure(['k']), /boom/);
    } finally {
      close();
    }
  });
});
