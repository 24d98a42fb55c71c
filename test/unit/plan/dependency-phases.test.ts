import { describe, expect, it } from 'vitest';
import type { ManagedObject } from '../../../src/managed/index.ts';
import { dependencyPhases } from '../../../src/plan/planner.ts';

const object = (kind: string, name: string, spec: Record<string, unknown> = {}): ManagedObject =>
  ({ apiVersion: 'sluice.dev/v1alpha1', kind, metadata: { namespace: 'team', name }, spec }) as ManagedObject;
const names = (phases: ManagedObject[][]) => phases.map((phase) => phase.map((o) => o.metadata.name));

describe('dependencyPhases', () => {
  it('plans a service before the endpoint in it, and that endpoint before the pipe that uses it', () => {
    const pipe = object('Pipe', 'orders', {
      serviceRef: { name: 'analytics' },
      source: { kafka: { reversePrivateEndpointRefs: [{ name: 'brokers' }] } },
    });
    const endpoint = object('ReversePrivateEndpoint', 'brokers', { serviceRef: { name: 'analytics' } });
    const service = object('DatabaseService', 'analytics');
    expect(names(dependencyPhases([pipe, endpoint, service]))).toEqual([
      ['analytics'],
      ['brokers'],
      ['orders'],
    ]);
  });

  it('plans a service restored from another after that one, though both are of the same kind', () => {
    const restored = object('DatabaseService', 'restored', { restore: { fromBackupOf: 'analytics' } });
    const service = object('DatabaseService', 'analytics');
    const other = object('DatabaseService', 'reports');
    expect(names(dependencyPhases([restored, service, other]))).toEqual([
      ['analytics', 'reports'],
      ['restored'],
    ]);
  });

  it('a reference to an object outside the input, or in another namespace, holds nothing back', () => {
    const endpoint = object('ReversePrivateEndpoint', 'brokers', { serviceRef: { name: 'elsewhere' } });
    expect(names(dependencyPhases([endpoint]))).toEqual([['brokers']]);
  });

  it('objects referencing each other in a circle are still all planned', () => {
    const a = object('DatabaseService', 'a', { restore: { fromBackupOf: 'b' } });
    const b = object('DatabaseService', 'b', { restore: { fromBackupOf: 'a' } });
    expect(
      dependencyPhases([a, b])
        .flat()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
  });
});
