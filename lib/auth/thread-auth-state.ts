import type { MessagePort } from 'node:worker_threads';
import { ApiError, type ApiErrorCode, errorMessage } from '@/lib/domain/errors';
import type { AuthState } from './shared-state';

/**
 * One authentication state for the threads of one process. server.ts runs
 * Next in a worker thread (lib/http/next-thread.ts); without Redis the state
 * lives in the main thread's memory, so the worker's sign-in throttle,
 * sign-out, session checks and session activity must act on that same state, or a session
 * signed out in the dashboard would still open the API (and the reverse).
 * The worker calls the main thread's state over a MessagePort; every method
 * is asynchronous already, so callers do not notice the hop.
 */

/** Every method of AuthState the worker may call, by name. */
type Methods = {
  'nonceCounts.accept': AuthState['nonceCounts']['accept'];
  'throttle.check': AuthState['throttle']['check'];
  'throttle.recordFailure': AuthState['throttle']['recordFailure'];
  'throttle.recordSuccess': AuthState['throttle']['recordSuccess'];
  'revocations.revoke': AuthState['revocations']['revoke'];
  'revocations.revokeIssuedBefore': AuthState['revocations']['revokeIssuedBefore'];
  'revocations.isRevoked': AuthState['revocations']['isRevoked'];
  'activity.lastActive': AuthState['activity']['lastActive'];
};
type Operation = keyof Methods;

// Bound: the in-memory revocations are a class whose methods use `this`.
const METHODS: { [K in Operation]: (state: AuthState) => Methods[K] } = {
  'nonceCounts.accept': (s) => s.nonceCounts.accept.bind(s.nonceCounts),
  'throttle.check': (s) => s.throttle.check.bind(s.throttle),
  'throttle.recordFailure': (s) => s.throttle.recordFailure.bind(s.throttle),
  'throttle.recordSuccess': (s) => s.throttle.recordSuccess.bind(s.throttle),
  'revocations.revoke': (s) => s.revocations.revoke.bind(s.revocations),
  'revocations.revokeIssuedBefore': (s) => s.revocations.revokeIssuedBefore.bind(s.revocations),
  'revocations.isRevoked': (s) => s.revocations.isRevoked.bind(s.revocations),
  'activity.lastActive': (s) => s.activity.lastActive.bind(s.activity),
};

type Call = { id: number; op: Operation; args: unknown[] };
/** An ApiError crosses as its fields (a 503 when Redis is down); anything else as a message. */
type Failure =
  | { kind: 'api'; code: ApiErrorCode; detail: string; headers: [string, string][] }
  | { kind: 'other'; message: string };
type Reply = { id: number; value?: unknown; failure?: Failure };

function dispatch(state: AuthState, op: Operation, args: unknown[]): Promise<unknown> {
  const method = METHODS[op](state) as (...args: unknown[]) => Promise<unknown>;
  return method(...args);
}

function failureOf(error: unknown): Failure {
  if (error instanceof ApiError) {
    return { kind: 'api', code: error.code, detail: error.detail, headers: [...error.headers] };
  }
  return { kind: 'other', message: errorMessage(error) };
}

/** Main thread: answers the worker's calls on `port` with `state()`. */
export function serveAuthState(port: MessagePort, state: () => AuthState): void {
  port.on('message', (call: Call) => {
    dispatch(state(), call.op, call.args).then(
      (value) => port.postMessage({ id: call.id, value } satisfies Reply),
      (error: unknown) =>
        port.postMessage({ id: call.id, failure: failureOf(error) } satisfies Reply),
    );
  });
}

/** Worker thread: an AuthState whose every call is answered by the main thread's. */
export function remoteAuthState(port: MessagePort, kind: AuthState['kind']): AuthState {
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  port.on('message', (reply: Reply) => {
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    const failure = reply.failure;
    if (!failure) waiter.resolve(reply.value);
    else if (failure.kind === 'api') {
      waiter.reject(new ApiError(failure.code, failure.detail, [], failure.headers));
    } else waiter.reject(new Error(failure.message));
  });
  const call =
    <K extends Operation>(op: K) =>
    (...args: Parameters<Methods[K]>): ReturnType<Methods[K]> =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        port.postMessage({ id, op, args } satisfies Call);
      }) as ReturnType<Methods[K]>;
  return {
    kind,
    nonceCounts: { accept: call('nonceCounts.accept') },
    throttle: {
      check: call('throttle.check'),
      recordFailure: call('throttle.recordFailure'),
      recordSuccess: call('throttle.recordSuccess'),
    },
    revocations: {
      revoke: call('revocations.revoke'),
      revokeIssuedBefore: call('revocations.revokeIssuedBefore'),
      isRevoked: call('revocations.isRevoked'),
    },
    activity: { lastActive: call('activity.lastActive') },
    // The main thread connects and closes the state it owns.
    warm: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
