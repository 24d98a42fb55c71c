// The procedure of docs/operations.md "Rotating the operator's key", walked step by step: a new key beside
// the old one, the Secret edited live (no restart), the new key seen in use with no 401, then the old one
// revoked, and every object still Ready.
import { describe, expect, it } from 'vitest';
import { until } from '../../../support/wait.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { CREDENTIALS_SECRET, isReady, useOperatorEnv, type OperatorEnv } from '../support.ts';

/** A key made in the cloud (the console's step), with the id and secret it is shown once with. */
async function makeKey(env: OperatorEnv, name: string) {
  const made = await env.cloud.createApiKey({ name, roles: ['admin'] });
  return { id: made.key.id, keyId: made.keyId!, keySecret: made.keySecret! };
}

/** The operator's credentials Secret holding this key (what `kubectl edit secret` leaves). */
const operatorSecretWith = (env: OperatorEnv, key: { keyId: string; keySecret: string }) => {
  const { organizationId, alertsToken } = env.emulator.credentials;
  return env.putSecret(CREDENTIALS_SECRET, {
    organizationId,
    keyId: key.keyId,
    keySecret: key.keySecret,
    managementUrl: env.emulator.url,
    alertsUrl: env.emulator.url,
    alertsToken,
  });
};

describe.skipIf(clusterSkipReason())("rotating the operator's key as docs/operations.md says", () => {
  const env = useOperatorEnv('key-rotation');

  it('an edit of the Secret takes effect without a restart; the old key is revoked with no 401 and nothing un-Ready', async () => {
    const old = await makeKey(env, 'operator-old');
    await operatorSecretWith(env, old);
    await env.apply('orders', { name: 'orders' });
    await env.waitFor('orders', 'Ready', isReady);
    await env.freshLook('DatabaseService', 'orders');
    expect((await env.calls()).some((call) => call.key === old.keyId)).toBe(true);

    // 1. A new key, the old one kept.  2. The Secret edited: the operator running as it is.
    const operator = env.operator;
    const fresh = await makeKey(env, 'operator-new');
    await env.clearCalls();
    await operatorSecretWith(env, fresh);
    // 3. Requests with the new key after the edit (once the watch delivered it), and no 401.
    await until('a request with the new key', async () => {
      await env.freshLook('DatabaseService', 'orders');
      return (await env.calls()).some((call) => call.key === fresh.keyId);
    });
    const afterEdit = await env.calls();
    expect(afterEdit.some((call) => call.key === fresh.keyId)).toBe(true);
    expect(afterEdit.filter((call) => call.status === 401)).toEqual([]);
    expect(env.operator).toBe(operator);

    // 4. The old key revoked: the operator no longer uses it, so nothing fails.
    await env.cloud.deleteApiKey(old.id);
    await env.clearCalls();
    await env.freshLook('DatabaseService', 'orders');
    const afterRevoke = await env.calls();
    expect(afterRevoke.filter((call) => call.key === old.keyId)).toEqual([]);
    expect(afterRevoke.filter((call) => call.status === 401)).toEqual([]);
    expect(isReady(await env.get('orders'))).toBe(true);
  });
});
