import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertSpec } from '../../../../src/kinds/alert/schema.ts';
import { DatabaseServiceSpec } from '../../../../src/kinds/database-service/schema.ts';
import { AlertRequest } from '../../../../src/cloud/schemas/alert.ts';
import { SourceRequest } from '../../../../src/cloud/schemas/clickstack.ts';
import type { SavedSearchSpec } from '../../../../src/kinds/saved-search/schema.ts';
import type { SourceSpec } from '../../../../src/kinds/source/schema.ts';
import { sourceBody } from '../../../../src/kinds/source/mapping.ts';
import { alertBody, withReferencedIds } from '../../../../src/kinds/alert/mapping.ts';
import { pipeSecretUses, type PipeSpec } from '../../../../src/kinds/pipe/schema.ts';
import { repoRoot } from '../../../../tools/cluster/assets.ts';
import { createTestNamespace, type TestNamespace } from '../../../harness/namespace.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';

type Example = KubernetesObject & { spec?: Record<string, unknown>; stringData?: Record<string, string> };

/** Every document of every file in deploy/examples/, in the order `npm run demo` applies them. */
const examplesDir = join(repoRoot, 'deploy', 'examples');
const examples = readdirSync(examplesDir)
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(examplesDir, file), 'utf8')).map((document) => {
      const object = document.toJS() as Example;
      return { file, object, label: `${file}: ${object.kind} ${object.metadata?.name}` };
    }),
  );
const named = (kind: string) =>
  new Map(examples.filter((e) => e.object.kind === kind).map((e) => [e.object.metadata!.name!, e]));
const pipes = examples.filter((e) => e.object.kind === 'Pipe');
const alerts = examples.filter((e) => e.object.kind === 'Alert');

describe('deploy/examples', () => {
  it('holds a kafka and a one-shot object-storage Pipe', () => {
    const sources = pipes.map((e) => (e.object.spec as PipeSpec).source);
    expect(sources.map((source) => Object.keys(source))).toEqual([['kafka'], ['objectStorage']]);
    expect(sources[1]!.objectStorage!.isContinuous).not.toBe(true);
  });

  it('holds a QueryEndpoint and a ReversePrivateEndpoint', () => {
    expect(named('QueryEndpoint').size).toBe(1);
    expect(named('ReversePrivateEndpoint').size).toBe(1);
  });

  const before = (other: (typeof examples)[number] | undefined, example: (typeof examples)[number]) =>
    other !== undefined && examples.indexOf(other) < examples.indexOf(example);

  it.each(examples.filter((e) => e.object.spec?.serviceRef).map((e) => [e.label, e]))(
    '%s: references a DatabaseService applied before it',
    (_label, example) => {
      const { serviceRef } = example.object.spec as { serviceRef: { name: string } };
      expect(before(named('DatabaseService').get(serviceRef.name), example)).toBe(true);
    },
  );

  it.each(pipes.map((e) => [e.label, e]))(
    '%s: references Secrets of its own file, applied before it, with the keys it needs',
    (_label, pipe) => {
      const uses = pipeSecretUses(pipe.object.spec as PipeSpec);
      expect(uses.length).toBeGreaterThan(0);
      for (const use of uses) {
        const secret = named('Secret').get(use.secretName);
        expect(before(secret, pipe) && secret!.file === pipe.file, use.field).toBe(true);
        expect(Object.keys(secret!.object.stringData ?? {}).sort()).toEqual([...use.keys].sort());
      }
    },
  );

  it('holds a DatabaseService with a backup policy and a weekday scaling window', () => {
    const specs = [...named('DatabaseService').values()].map((e) => DatabaseServiceSpec.parse(e.object.spec));
    const planned = specs.find((spec) => spec.backups && spec.scalingSchedule);
    expect(planned?.backups?.retentionInHours).toBeDefined();
    expect(planned?.scalingSchedule?.[0]?.weekdays).toEqual([1, 2, 3, 4, 5]);
  });

  it("holds a team's ApiKey whose Secret an object applied after it uses as its credentials", () => {
    const [key] = named('ApiKey').values();
    const secretName = (key!.object.spec as { credentialsSecret: { name: string } }).credentialsSecret.name;
    const users = examples.filter(
      (e) =>
        (e.object.spec as { credentialsRef?: { name: string } } | undefined)?.credentialsRef?.name ===
        secretName,
    );
    expect(users.length).toBeGreaterThan(0);
    for (const user of users) expect(before(key, user)).toBe(true);
  });

  it('holds a webhook, a source, a saved search of it, a dashboard of two tiles and an alert on each, whose bodies the API accepts', () => {
    expect([
      ...named('Webhook').keys(),
      ...named('Source').keys(),
      ...named('SavedSearch').keys(),
      ...named('Dashboard').keys(),
    ]).toHaveLength(4);
    const [search] = named('SavedSearch').values();
    const sourceRef = (search!.object.spec as SavedSearchSpec).sourceRef;
    expect(named('Source').has(sourceRef!.name)).toBe(true);
    for (const source of named('Source').values()) {
      const body = sourceBody(source.object.spec as SourceSpec, 'cluster/ns/Source/name');
      expect(SourceRequest.safeParse(body).error).toBeUndefined();
    }
    const tiles = (named('Dashboard').get('ingest')!.object.spec as { tiles: { name: string }[] }).tiles;
    expect(tiles.map((tile) => tile.name).sort()).toEqual(
      alerts.flatMap((alert) => (alert.object.spec as AlertSpec).tile ?? []).sort(),
    );
    expect(alerts.filter((alert) => (alert.object.spec as AlertSpec).savedSearchRef)).toHaveLength(1);
    const ids = { webhookId: 'w', dashboardId: 'd', tileId: 't', savedSearchId: 's' };
    for (const alert of alerts) {
      const spec = withReferencedIds(alert.object.spec as AlertSpec, ids);
      expect(AlertRequest.safeParse(alertBody(spec)).error).toBeUndefined();
    }
  });

  describe.skipIf(clusterSkipReason())('on the real apiserver', () => {
    let ns: TestNamespace;
    let objects: KubernetesObjectApi;
    beforeAll(async () => {
      ns = await createTestNamespace('examples');
      objects = KubernetesObjectApi.makeApiClient(ns.kc);
    });
    afterAll(async () => ns?.delete());

    it.each(examples.map((e) => [e.label, e.object]))('%s is accepted (dry run)', async (_label, object) => {
      const created = await objects.create(
        { ...object, metadata: { ...object.metadata, namespace: ns.name } },
        undefined,
        'All',
      );
      expect(created.metadata?.name).toBe(object.metadata?.name);
    });
  });
});
