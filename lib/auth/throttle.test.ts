import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressThrottleKey, FailureThrottle, getAuthThrottle } from './throttle';

const t0 = 1_800_000_000_000;
const MIN = 60_000;

describe('FailureThrottle', () => {
  test('10 failures for a key within 5 minutes block it; others are unaffected', () => {
    const throttle = new FailureThrottle();
    for (let i = 0; i < 9; i++) throttle.recordFailure(['key:abc'], t0 + i * 1000);
    assert.deepEqual(throttle.check(['key:abc'], t0 + 9000), {
      blocked: false,
      retryAfterSeconds: 0,
    });
    throttle.recordFailure(['key:abc'], t0 + 9000);
    const decision = throttle.check(['key:abc', 'ip:1.2.3.4'], t0 + 10_000);
    assert.equal(decision.blocked, true);
    assert.equal(decision.retryAfterSeconds, 59);
    assert.equal(throttle.check(['key:other'], t0 + 10_000).blocked, false);
    assert.equal(throttle.check(['key:abc'], t0 + 9000 + MIN + 1).blocked, false, 'block ends');
  });

  test('failures spread beyond the window do not add up', () => {
    const throttle = new FailureThrottle();
    for (let i = 0; i < 30; i++) throttle.recordFailure(['key:slow'], t0 + i * 6 * MIN);
    assert.equal(throttle.check(['key:slow'], t0 + 30 * 6 * MIN).blocked, false);
  });

  test('addresses get 30 failures, and repeat offences back off exponentially to 15 minutes', () => {
    const throttle = new FailureThrottle();
    let now = t0;
    const durations: number[] = [];
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 30; i++) throttle.recordFailure(['ip:10.0.0.1'], now);
      const { retryAfterSeconds } = throttle.check(['ip:10.0.0.1'], now);
      durations.push(retryAfterSeconds);
      now += retryAfterSeconds * 1000 + 1;
    }
    assert.deepEqual(durations, [60, 120, 240, 480, 900, 900]);
  });

  test('recordSuccess forgets the count but not a block', () => {
    const throttle = new FailureThrottle();
    for (let i = 0; i < 9; i++) throttle.recordFailure(['key:k'], t0);
    throttle.recordSuccess(['key:k']);
    throttle.recordFailure(['key:k'], t0);
    assert.equal(throttle.check(['key:k'], t0).blocked, false);
    for (let i = 0; i < 10; i++) throttle.recordFailure(['key:k'], t0);
    throttle.recordSuccess(['key:k']);
    assert.equal(throttle.check(['key:k'], t0).blocked, true);
  });

  test('memory is bounded, and blocks survive eviction of idle counters', () => {
    const throttle = new FailureThrottle({
      limits: { key: 2 },
      defaultLimit: 2,
      windowMs: 5 * MIN,
      firstBlockMs: MIN,
      maxBlockMs: 15 * MIN,
      maxEntries: 100,
    });
    throttle.recordFailure(['key:victim'], t0);
    throttle.recordFailure(['key:victim'], t0);
    for (let i = 0; i < 1000; i++) throttle.recordFailure([`key:random${i}`], t0 + 1000);
    assert.ok(throttle.size <= 100);
    assert.equal(throttle.check(['key:victim'], t0 + 2000).blocked, true);
  });

  test('one throttle per process, shared through globalThis', () => {
    assert.equal(getAuthThrottle(), getAuthThrottle());
  });
});

test('addressThrottleKey normalizes addresses and groups IPv6 by /64', () => {
  assert.equal(addressThrottleKey('127.0.0.1'), 'ip:127.0.0.1');
  assert.equal(addressThrottleKey('::ffff:127.0.0.1'), 'ip:127.0.0.1');
  assert.equal(addressThrottleKey('2001:db8:1:2:3:4:5:6'), 'ip:2001:db8:1:2::/64');
  assert.equal(addressThrottleKey('2001:DB8:1:2::ff'), 'ip:2001:db8:1:2::/64');
  assert.equal(addressThrottleKey('[2001:db8::1]'), 'ip:2001:db8:0:0::/64');
  assert.equal(addressThrottleKey('fe80::1%eth0'), 'ip:fe80:0:0:0::/64');
  assert.equal(addressThrottleKey('::1'), 'ip:0:0:0:0::/64');
  assert.equal(addressThrottleKey(undefined), 'ip:unknown');
});
