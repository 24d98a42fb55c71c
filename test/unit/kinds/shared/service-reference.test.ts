import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/cloud/errors.ts';
import type { ManagementClient } from '../../../../src/cloud/management-client.ts';
import { ServiceGate, ServiceNotRunning } from '../../../../src/kinds/shared/service-reference.ts';
import { serviceReference, type ServiceScoped } from '../../../../src/kinds/shared/service-scoped.ts';
import { resolveReferences } from '../../../../src/managed/references.ts';
import type { ManagedObject } from '../../../../src/managed/index.ts';

const pipe: ServiceScoped = {
  metadata: { name: 'events', namespace: 'team', uid: 'u-1' },
  spec: { serviceRef: { name: 'analytics' } },
};

function waitOn(service: ManagedObject | undefined) {
  return resolveReferences(pipe, [serviceReference<ServiceScoped>()], () => service);
}

const service = (status?: Record<string, unknown>): ManagedObject => ({
  metadata: { name: 'analytics', namespace: 'team', uid: 'u-2' },
  spec: {},
  ...(status ? { status } : {}),
});

describe('a reference to a DatabaseService', () => {
  it('gives one wait message for every step of a service on its way, so a dependant writes its status once', () => {
    const steps = [
      service(),
      service({ id: 'svc-1' }),
      service({ id: 'svc-1', state: 'provisioning' }),
      service({ id: 'svc-1', state: 'starting' }),
    ];
    const messages = new Set(steps.map((step) => JSON.stringify(waitOn(step))));
    expect([...messages]).toEqual([
      JSON.stringify({ waitingFor: 'DatabaseService analytics is not ready yet' }),
    ]);
  });

  it('names the lasting reasons: missing, stopped by the user, being deleted', () => {
    expect(waitOn(undefined)).toEqual({
      waitingFor: 'DatabaseService analytics does not exist yet',
      missing: 'DatabaseService analytics',
    });
    expect(waitOn(service({ id: 'svc-1', state: 'stopped' }))).toEqual({
      waitingFor: 'DatabaseService analytics is stopped (sluice never starts a service for its dependants)',
    });
    const deleting = service({ id: 'svc-1', state: 'running' });
    deleting.metadata.deletionTimestamp = '2026-11-24T00:00:00Z';
    expect(waitOn(deleting)).toEqual({ waitingFor: 'DatabaseService analytics is being deleted' });
  });

  it('resolves a running or idle service to its id', () => {
    for (const state of ['running', 'idle']) {
      const resolution = waitOn(service({ id: 'svc-1', state }));
      expect(resolution).toMatchObject({ resolved: { service: [{ id: 'svc-1' }] } });
    }
  });

  it('lets a dependant that exists in the cloud observe under a stopped service; one to be created waits', () => {
    const stopped = service({ id: 'svc-1', state: 'stopped' });
    const resolve = (dependant: ServiceScoped) =>
      resolveReferences(dependant, [serviceReference<ServiceScoped>()], () => stopped);
    const made = { ...pipe, status: { id: 'pipe-1' } };
    const adopted = {
      ...pipe,
      metadata: { ...pipe.metadata, annotations: { 'sluice.dev/external-id': 'pipe-1' } },
    };
    for (const existing of [made, adopted]) {
      expect(resolve(existing)).toMatchObject({ resolved: { service: [{ id: 'svc-1' }] } });
    }
    expect(resolve(pipe)).toHaveProperty('waitingFor');
  });
});

describe('a call that needs a running service', () => {
  /** The cloud's answer to a call its service cannot take in `state`. */
  const notRunning = (state: string) =>
    new ApiError({
      api: 'management',
      method: 'POST',
      route: '/services/:id/pipes',
      path: '/services/svc-1/pipes',
      status: 424,
      code: 'FAILED_DEPENDENCY',
      apiMessage: `Service is not running. Current state: ${state}`,
      attempts: 1,
      retryable: false,
      mayHaveSucceeded: false,
    });

  function gate() {
    const woken: string[] = [];
    const management = {
      changeServiceState: async (id: string, command: string) => {
        woken.push(`${id} ${command}`);
      },
    } as unknown as ManagementClient;
    const analytics = { id: 'svc-1', object: service({ id: 'svc-1', state: 'running' }) };
    const observed = {} as ConstructorParameters<typeof ServiceGate>[2];
    return { woken, gate: new ServiceGate(management, analytics, observed) };
  }

  it('returns the wait the cloud answers for a service not running (an idle one woken), never throws it', async () => {
    const idle = gate();
    const answer = await idle.gate.call(() => Promise.reject(notRunning('idle')));
    expect(answer).toBeInstanceOf(ServiceNotRunning);
    expect(answer).toMatchObject({
      state: 'idle',
      reason: 'WaitingForReference',
      message: 'DatabaseService analytics was idle and is being woken up',
    });
    expect(idle.woken).toEqual(['svc-1 awake']);

    const stopped = gate();
    await expect(stopped.gate.call(() => Promise.reject(notRunning('stopped')))).resolves.toMatchObject({
      state: 'stopped',
      message:
        'DatabaseService analytics: service is stopped (sluice never starts a service for its dependants)',
    });
    expect(stopped.woken).toEqual([]);
  });

  it("answers with the call's own answer, and throws any other failure as it is", async () => {
    const { gate: running } = gate();
    await expect(running.call(async () => 'made')).resolves.toBe('made');
    const failed = new Error('socket hang up');
    await expect(running.call(() => Promise.reject(failed))).rejects.toBe(failed);
  });
});
