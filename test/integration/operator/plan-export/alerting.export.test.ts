import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../../tools/cluster/assets.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  exportFrom,
  isReadyWithId,
  loseObjects,
  writes,
  type SluiceObject,
  useOperatorEnv,
} from '../support.ts';

interface Document {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  stringData?: Record<string, string>;
}

/** deploy/examples/alerting.yaml: a webhook, a source, a saved search of it, a dashboard of two tiles, alerts. */
const SETUP = parseAllDocuments(
  readFileSync(join(repoRoot, 'deploy', 'examples', 'alerting.yaml'), 'utf8'),
).map((document) => document.toJS() as Document);
const MANAGED = SETUP.filter((document) => document.kind !== 'Secret');

describe.skipIf(clusterSkipReason())("sluice export of an alerting team's setup", () => {
  const env = useOperatorEnv('alerting-export', { operator: { clusterName: 'prod' } });

  const create = (document: Document) =>
    env.objects.create({
      ...document,
      metadata: { ...document.metadata, namespace: env.namespace },
    } as never);
  const readyIds = async (documents: Document[]) => {
    const ids: Record<string, string> = {};
    for (const { kind, metadata } of documents) {
      const ready = await env.of<SluiceObject>(kind).waitFor(metadata.name, `${kind} Ready`, isReadyWithId);
      ids[`${kind}/${metadata.name}`] = ready.status!.id!;
    }
    return ids;
  };

  it('round-trips: the exported manifests, applied to a rebuilt cluster, take everything back with zero writes', async () => {
    for (const document of SETUP) await create(document);
    const ids = await readyIds(MANAGED);

    const exported = await exportFrom(env, { ownedBy: 'prod', includeManaged: true });
    expect(exported.code, exported.stderr).toBe(0);
    const manifests = parseAllDocuments(exported.stdout)
      .map((document) => document.toJS() as Document | null)
      .filter((document): document is Document => document !== null && document.kind !== undefined);
    expect(
      manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort(),
      exported.stderr + exported.stdout,
    ).toEqual(Object.keys(ids).sort());
    // The webhook's URL is asked for as a Secret to create; no token is in the manifests.
    const urlSecret = /kubectl create secret generic (\S+) .*--from-literal=url=…/.exec(exported.stderr)?.[1];
    expect(urlSecret, exported.stderr).toBeDefined();
    expect(exported.stdout).not.toContain('demo-token-change-me');
    // Alerts name what they hang on by reference, a tile by its name.
    const lag = manifests.find((m) => m.metadata.name === 'orders-lag')!;
    expect(lag.spec).toMatchObject({ dashboardRef: { name: 'ingest' }, tile: 'lag' });
    expect(lag.spec!.channel).toEqual({ type: 'webhook', webhookRef: { name: 'on-call' } });
    // The saved search names its source by reference too.
    const search = manifests.find((m) => m.kind === 'SavedSearch')!;
    expect(search.spec).toMatchObject({ sourceRef: { name: 'order-logs' } });
    expect(search.spec).not.toHaveProperty('sourceId');

    // The cluster is lost: its objects go without their finalizers running.
    await loseObjects(
      env,
      MANAGED.map(({ kind, metadata }) => ({ kind, name: metadata.name })),
      [],
    );
    const webhookSecret = SETUP.find((document) => document.kind === 'Secret')!;
    await env.putSecret(urlSecret!, { url: webhookSecret.stringData!.url! });
    await env.clearCalls();
    await env.startOperator({ clusterName: 'prod' });
    for (const manifest of manifests) await create(manifest);
    expect(await readyIds(manifests)).toEqual(ids);
    expect(writes(await env.calls())).toEqual([]);
  }, 120_000);
});
