import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';

describe.skipIf(clusterSkipReason())('crash-safe create', () => {
  let env: OperatorEnv;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await startOperatorEnv('dbs-crash');
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await env?.close();
  });

  it('after a kill -9 between the create call and the status write, exactly one service exists and is adopted', async () => {
    // The emulator creates the service but holds its answer back, so the operator dies knowing no id.
    await env.fault({ method: 'POST', route: SERVICES, phase: 'response', latencyMs: 60_000 });
    child = env.spawnOperator();
    await env.apply('phoenix', { name: 'phoenix' });

    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await env.cloud.listServices()).length === 0) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(await env.cloud.listServices()).toHaveLength(1);
    expect((await env.get('phoenix'))!.status?.id).toBeUndefined();

    await env.fault();
    await env.startOperator();
    const ready = await env.waitFor('phoenix', 'Ready after restart', isReady);

    const services = await env.cloud.listServices();
    expect(services.map((s) => s.id)).toEqual([ready.status!.id]);
    const posts = (await env.calls()).filter((c) => c.method === 'POST' && c.route === SERVICES);
    expect(posts).toHaveLength(1);
    // The password died with the first process; the adopted service gets a fresh one by reset.
    expect((await env.secret('phoenix-connection'))!.password).toBeTruthy();
  });
});
