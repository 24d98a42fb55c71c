// What an administrator limits ApiKeys to beyond RBAC: the roles a namespace's keys may have
// (--api-key-roles, the chart's operator.apiKeyRoles), and never the operator's own key.
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { configuredKeyUuid } from '../../../../src/emulator/api-keys.ts';
import { KEY, KEYS, teamKey } from '../../../../tools/fixtures/api-key.ts';
import {
  condition,
  isReadyWithId,
  TIME_SCALE,
  useOperatorEnv,
  writes,
  type SluiceObject,
} from '../support.ts';

const synced = (reason: string) => (o: SluiceObject | undefined) =>
  condition(o, 'Synced')?.status === 'False' && condition(o, 'Synced')?.reason === reason;

describe.skipIf(clusterSkipReason())('ApiKey guard rails', () => {
  const env = useOperatorEnv('key-guard', {
    emulator: { timeScale: TIME_SCALE },
    // Filled in per namespace below: this env's namespace may make developer and query_endpoints keys only.
    operator: false,
  });
  const keys = () => env.of<SluiceObject>('ApiKey');
  beforeAll(async () => {
    await env.startOperator({
      timeScale: TIME_SCALE,
      apiKeyRoles: `${env.namespace}=developer+query_endpoints,*=developer`,
    });
  });
  const keyWrites = async () => writes(await env.calls()).filter((c) => c.route === KEYS || c.route === KEY);

  it('a role outside the namespace allow-list is refused naming spec.roles: no key made, no PATCH', async () => {
    await keys().apply('too-strong', teamKey('too-strong', { roles: ['admin'] }));
    const refused = await keys().waitFor('too-strong', 'refused', synced('RoleNotAllowed'));
    expect(condition(refused, 'Synced')!.message).toContain('spec.roles');
    expect(condition(refused, 'Synced')!.message).toContain('admin');
    expect(await env.secret('too-strong-credentials')).toBeUndefined();

    await keys().apply('allowed', teamKey('allowed', { roles: ['developer', 'query_endpoints'] }));
    const made = await keys().waitFor('allowed', 'Ready', isReadyWithId);
    await env.clearCalls();
    await keys().patchSpec('allowed', { roles: ['developer', 'admin'] });
    await keys().waitFor('allowed', 'the edit refused', synced('RoleNotAllowed'));
    expect(env.emulator.store.apiKeys.get(made.status!.id!)!.roles).toEqual(['developer', 'query_endpoints']);
    expect(await keyWrites()).toEqual([]);
    expect([...env.emulator.store.apiKeys.values()].filter((k) => k.name === 'too-strong')).toEqual([]);
  });

  it("an ApiKey naming the operator's own key is refused: no write reaches it, and deleting the object leaves it", async () => {
    // The emulator's own key (the one the operator signs in with) refuses writes itself (409): none is sent.
    const operatorKeyId = configuredKeyUuid(env.emulator.credentials.keyId);
    const before = await env.cloud.getApiKey(operatorKeyId);
    await env.clearCalls();
    await keys().apply('take-over', teamKey('take-over', { name: 'renamed' }), {
      'sluice.dev/external-id': operatorKeyId,
    });
    const refused = await keys().waitFor('take-over', 'refused', synced('OperatorKey'));
    expect(condition(refused, 'Synced')!.message).toContain('sluice.dev/external-id');
    await keys().removeUntilGone('take-over');
    expect(await keyWrites()).toEqual([]);
    expect(await env.cloud.getApiKey(operatorKeyId)).toMatchObject({
      name: before.name,
      roles: before.roles,
      state: before.state,
    });
  });
});
