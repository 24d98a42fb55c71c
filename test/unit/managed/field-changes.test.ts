import { describe, expect, it } from 'vitest';
import { applyFieldPolicy } from '../../../src/managed/field-policy.ts';
import { DATABASE_SERVICE_POLICY } from '../../../src/kinds/database-service/schema.ts';
import { diffService, serviceAsSpec } from '../../../src/kinds/database-service/mapping.ts';
import type { Service } from '../../../src/cloud/schemas/service.ts';
import type { DatabaseServiceSpec } from '../../../src/kinds/database-service/schema.ts';

const service = {
  id: 's-1',
  name: 'analytics',
  provider: 'aws',
  region: 'eu-central-1',
  state: 'running',
  numReplicas: 4,
  idleScaling: true,
  ipAccessList: [{ source: '10.0.0.0/8', description: 'private' }, { source: '0.0.0.0/0' }],
  tags: [],
} as unknown as Service;

const observe = (spec: DatabaseServiceSpec) =>
  applyFieldPolicy({ metadata: {}, spec }, DATABASE_SERVICE_POLICY, serviceAsSpec(service), (desired) =>
    diffService(desired, undefined, service),
  );

describe("a service's changes as old and new values", () => {
  it('gives each changed field the cloud value and the spec value', () => {
    const { changes } = observe({
      name: 'analytics',
      provider: 'aws',
      region: 'eu-central-1',
      numReplicas: 5,
      idleScaling: false,
      state: 'Stopped',
    } as DatabaseServiceSpec);
    expect(changes).toEqual([
      { field: 'numReplicas', from: 4, to: 5 },
      { field: 'idleScaling', from: true, to: false },
      { field: 'state', from: 'Running', to: 'Stopped' },
    ]);
  });

  it('gives a list the entries added and removed, not the whole list', () => {
    const { changes } = observe({
      name: 'analytics',
      provider: 'aws',
      region: 'eu-central-1',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'private' }, { source: '198.51.100.0/24' }],
    } as DatabaseServiceSpec);
    expect(changes).toEqual([
      { field: 'ipAccessList', added: [{ source: '198.51.100.0/24' }], removed: [{ source: '0.0.0.0/0' }] },
    ]);
  });
});
