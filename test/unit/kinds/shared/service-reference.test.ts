import { describe, expect, it } from 'vitest';
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
