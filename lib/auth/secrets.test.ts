import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { warnIfSecretMissing } from './secrets';

test('production without ORG_EVENTS_SECRET prints one loud warning, and only then', () => {
  const original = getConfig().ORG_EVENTS_SECRET;
  const printed: string[] = [];
  const print = (message: string) => printed.push(message);
  try {
    setConfigForTesting({ ORG_EVENTS_SECRET: 'a-configured-secret-0123456789abcdef' });
    assert.equal(warnIfSecretMissing(true, print), null, 'secret set');
    setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
    assert.equal(warnIfSecretMissing(false, print), null, 'not production');
    assert.deepEqual(printed, []);

    const warning = warnIfSecretMissing(true, print);
    assert.match(warning ?? '', /ORG_EVENTS_SECRET is not set/);
    assert.match(warning ?? '', /unencrypted/);
    warnIfSecretMissing(true, print);
    assert.deepEqual(printed, [warning], 'printed once per process');
  } finally {
    setConfigForTesting({ ORG_EVENTS_SECRET: original });
  }
});
