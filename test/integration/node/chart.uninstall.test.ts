// `helm uninstall` on the real node strands no tenant: the chart's pre-delete hook runs `sluice uninstall` as a
// Job (the image the chart runs), which stops the operator and takes every sluice finalizer off, so a tenant
// namespace whose objects used its own credentials is deleted afterwards with no operator left.
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_FINALIZER } from '../../../src/runtime/credentials-usage.ts';
import {
  podReady,
  RELEASE_NAMESPACE as RELEASE_NS,
  type ChartOnNode,
} from '../../../tools/cluster/chart-on-node.ts';
import { NODE_NETWORK } from '../../../tools/cluster/node.ts';
import { RESTRICTED } from '../install/support.ts';
import { chartOnSharedNode } from './shared-node.ts';
import { eventually, isReady, nodeSkipReason, type Sluice } from './support.ts';

const TENANT_NS = 'tenant';
const OWN = 'tenant-credentials';
/** Generous: two cores shared with other builds and test runs. */
const SETTLE_MS = 240_000;

describe.skipIf(nodeSkipReason())('helm uninstall of the chart on the real node', () => {
  let chart: ChartOnNode;

  beforeAll(async () => {
    chart = await chartOnSharedNode({ log: (msg) => console.log(`[node] ${msg}`), rateLimit: 'off' });
  }, 900_000);
  afterAll(async () => {
    await chart?.stop();
  });

  it('leaves no sluice finalizer: a tenant namespace that used its own credentials is deleted afterwards, its cloud service kept', async () => {
    const { core, kc, emulator } = chart;
    await core.createNamespace({ body: { metadata: { name: RELEASE_NS, labels: RESTRICTED } } });
    chart.helm('install');
    await eventually(
      'the operator pod Ready',
      async () => ((await chart.operatorPods()).some(podReady) ? true : undefined),
      SETTLE_MS,
    );

    await core.createNamespace({ body: { metadata: { name: TENANT_NS } } });
    const { organizationId, keyId, keySecret } = emulator.credentials;
    await core.createNamespacedSecret({
      namespace: TENANT_NS,
      body: {
        metadata: { name: OWN },
        stringData: {
          organizationId,
          keyId,
          keySecret,
          managementUrl: `http://${NODE_NETWORK.nodeIp}:${emulator.port}`,
        },
      },
    });
    const objects = kc.makeApiClient(CustomObjectsApi);
    const service = {
      group: 'sluice.dev',
      version: 'v1alpha1',
      namespace: TENANT_NS,
      plural: 'databaseservices',
    };
    await objects.createNamespacedCustomObject({
      ...service,
      body: {
        apiVersion: 'sluice.dev/v1alpha1',
        kind: 'DatabaseService',
        metadata: { name: 'db' },
        spec: { name: 'tenant db', provider: 'aws', region: 'us-east-1', credentialsRef: { name: OWN } },
      },
    });
    const ready = await eventually(
      'the tenant service Ready',
      async () => {
        const found = (await objects.getNamespacedCustomObject({ ...service, name: 'db' })) as Sluice;
        return isReady(found) ? found : undefined;
      },
      SETTLE_MS,
    );
    const id = (ready as Sluice & { status: { id: string } }).status.id;
    const held = await core.readNamespacedSecret({ name: OWN, namespace: TENANT_NS });
    expect(held.metadata?.finalizers).toContain(CREDENTIALS_FINALIZER);

    chart.uninstall();
    expect(await chart.operatorPods()).toEqual([]);

    await core.deleteNamespace({ name: TENANT_NS });
    await eventually(
      'the tenant namespace gone',
      () =>
        core.readNamespace({ name: TENANT_NS }).then(
          () => undefined,
          (error: { code?: number }) => (error.code === 404 ? true : undefined),
        ),
      SETTLE_MS,
    );
    // Uninstalling deletes nothing in the cloud: a later install takes the service back from its record.
    expect(emulator.store.services.has(id)).toBe(true);
  }, 900_000);
});
