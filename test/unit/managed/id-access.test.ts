import { describe, expect, it } from 'vitest';
import {
  judgeIdAccess,
  type CloudIdGrant,
  type GrantSource,
  type IdAccessOptions,
  type PlainIdUse,
} from '../../../src/managed/id-access.ts';
import { reasonNames } from '../../../src/base/reasons.ts';

const { ServiceIdNotAllowed } = reasonNames({ ServiceIdNotAllowed: { means: 'a service not granted' } });
const use: PlainIdUse = { field: 'serviceId', id: 'svc-1', reason: ServiceIdNotAllowed };
const tenant = { namespace: 'data', kind: 'Pipe', operatorCredentials: true };
const recordedFor = (namespace: string, cluster = 'dev') => ({
  recorded: { cluster, namespace, kind: 'DatabaseService', name: 'warehouse' },
  holders: [],
});

const dataPipes = (namespace: string, name = 'data-pipes'): CloudIdGrant => ({
  metadata: { namespace, name },
  spec: {
    from: [{ namespace: 'data', kind: 'Pipe', field: 'serviceId' }],
    to: [{ kind: 'DatabaseService', name: 'warehouse' }],
  },
});

/** Grants as a cache shows them, and as the apiserver has them now (`live`). */
function grants(cached: CloudIdGrant[], live: CloudIdGrant[] = cached): GrantSource & { reads: number } {
  const source = {
    reads: 0,
    cached: (namespace: string) => cached.filter((g) => g.metadata.namespace === namespace),
    read: async (namespace: string, name: string) => {
      source.reads++;
      return live.find((g) => g.metadata.namespace === namespace && g.metadata.name === name);
    },
  };
  return source;
}

const options = (source: GrantSource, plainIdNamespaces: string[] = []): IdAccessOptions => ({
  cluster: { name: 'dev', explicit: true },
  grants: source,
  plainIdNamespaces,
});

describe('judgeIdAccess', () => {
  it('allows an id recorded for the referrer’s own namespace, with no grant read', async () => {
    const source = grants([]);
    expect(await judgeIdAccess(use, recordedFor('data'), tenant, options(source), true)).toBeUndefined();
    expect(source.reads).toBe(0);
  });

  it('refuses an id recorded for another namespace without its grant, naming the field', async () => {
    const verdict = await judgeIdAccess(use, recordedFor('analytics'), tenant, options(grants([])), true);
    expect(verdict?.reason).toBe('ServiceIdNotAllowed');
    expect(verdict?.message).toContain('spec.serviceId');
    expect(verdict?.message).not.toContain('analytics');
  });

  it('allows it with a grant in the owner’s namespace, read again from the apiserver first', async () => {
    const source = grants([dataPipes('analytics')]);
    expect(await judgeIdAccess(use, recordedFor('analytics'), tenant, options(source), true)).toBeUndefined();
    expect(source.reads).toBe(1);
  });

  it('a grant the cache still shows but the apiserver no longer has lets nothing through', async () => {
    const source = grants([dataPipes('analytics')], []);
    const verdict = await judgeIdAccess(use, recordedFor('analytics'), tenant, options(source), true);
    expect(verdict?.reason).toBe('ServiceIdNotAllowed');
  });

  it('a grant in the referring namespace, or for another field, kind or object, counts for nothing', async () => {
    const other = (spec: CloudIdGrant['spec']): CloudIdGrant => ({
      metadata: { namespace: 'analytics', name: 'other' },
      spec,
    });
    for (const grant of [
      dataPipes('data'),
      other({
        from: [{ namespace: 'data', kind: 'Pipe', field: 'sluice.dev/external-id' }],
        to: [{ kind: 'DatabaseService' }],
      }),
      other({
        from: [{ namespace: 'data', kind: 'QueryEndpoint', field: 'serviceId' }],
        to: [{ kind: 'DatabaseService' }],
      }),
      other({
        from: [{ namespace: 'data', kind: 'Pipe', field: 'serviceId' }],
        to: [{ kind: 'DatabaseService', name: 'reports' }],
      }),
    ]) {
      const verdict = await judgeIdAccess(
        use,
        recordedFor('analytics'),
        tenant,
        options(grants([grant])),
        true,
      );
      expect(verdict?.reason, JSON.stringify(grant)).toBe('ServiceIdNotAllowed');
    }
  });

  it('an id another namespace’s object holds needs that namespace’s grant, even where the cloud records nothing', async () => {
    const held = { holders: [{ kind: 'DatabaseService', namespace: 'analytics', name: 'warehouse' }] };
    expect(await judgeIdAccess(use, held, tenant, options(grants([]), ['data']), true)).toBeDefined();
    const granted = options(grants([dataPipes('analytics')]), ['data']);
    expect(await judgeIdAccess(use, held, tenant, granted, true)).toBeUndefined();
  });

  it('refuses an id recorded under a cluster this operator may not act for', async () => {
    const source = grants([dataPipes('data')]);
    const verdict = await judgeIdAccess(use, recordedFor('data', 'prod'), tenant, options(source), true);
    expect(verdict?.message).toContain('cluster "prod"');
  });

  it('an id nothing records: allowed with credentials of its own or where the administrator lists the namespace', async () => {
    const none = { holders: [] };
    const refused = await judgeIdAccess(use, none, tenant, options(grants([])), true);
    expect(refused?.message).toContain('--plain-id-namespaces');
    expect(await judgeIdAccess(use, none, tenant, options(grants([]), ['data']), true)).toBeUndefined();
    const ownKey = { ...tenant, operatorCredentials: false };
    expect(await judgeIdAccess(use, none, ownKey, options(grants([])), true)).toBeUndefined();
  });
});
