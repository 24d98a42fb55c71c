import { describe, expect, it } from 'vitest';
import { readInput } from '../../../src/plan/input.ts';

const read = (text: string) => readInput('-', 'apps', () => Promise.resolve(text));

describe('plan input', () => {
  it('takes sluice objects with their specs defaulted, Secrets, and leaves other kinds out', async () => {
    const input = await read(`
apiVersion: v1
kind: List
items:
  - apiVersion: sluice.dev/v1alpha1
    kind: DatabaseService
    metadata: { name: analytics }
    spec: { name: analytics, provider: aws, region: eu-central-1 }
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: other }
---
apiVersion: v1
kind: Secret
metadata: { name: pw, namespace: data }
data: { password: cGFzcw== }
stringData: { user: me }
`);
    expect(input.objects).toHaveLength(1);
    expect(input.objects[0]!.metadata).toMatchObject({ name: 'analytics', namespace: 'apps' });
    expect(input.objects[0]!.spec).toMatchObject({ state: 'Running', deletionPolicy: 'Orphan' });
    expect(input.secrets).toEqual([
      { namespace: 'data', name: 'pw', data: { password: 'pass', user: 'me' } },
    ]);
    expect(input.ignored).toBe(1);
  });

  it('refuses a spec the apiserver would refuse, naming the object and the field', async () => {
    await expect(
      read(`
apiVersion: sluice.dev/v1alpha1
kind: DatabaseService
metadata: { name: analytics }
spec: { name: analytics, provider: aws, region: eu-central-1, minReplicaMemoryGb: -1 }
`),
    ).rejects.toThrow(/<stdin>: DatabaseService analytics: spec\.minReplicaMemoryGb/);
  });

  it('refuses a template key that is a connection key, as admission does, naming the key', async () => {
    await expect(
      read(`
apiVersion: sluice.dev/v1alpha1
kind: DatabaseService
metadata: { name: analytics }
spec:
  name: analytics
  provider: aws
  region: eu-central-1
  connectionSecret: { template: { password: '{{ .password | urlquery }}' } }
`),
    ).rejects.toThrow(
      /DatabaseService analytics: spec\.connectionSecret\.template\.password.*template key password is a connection key/,
    );
  });
});
