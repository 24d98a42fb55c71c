// Status as Flux, kpt and cli-utils read it: status.Compute of sigs.k8s.io/cli-utils/pkg/kstatus, through
// test/envtest/kstatus (built with the control plane by `npm run envtest:setup`), over every Argo CD fixture
// of every kind and over live objects of every kind that the operator drives through each state.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KINDS } from '../../../src/kinds/index.ts';
import { healthCasesOf, type HealthStatus } from '../../../src/install/argocd-fixtures.ts';
import { healthCheckKinds } from '../../../src/install/render.ts';
import { repoRoot } from '../../../tools/cluster/assets.ts';
import { argoHealthOf } from '../../harness/argocd-health.ts';
import { kstatusOf } from '../../harness/kstatus.ts';
import { clusterSkipReason } from '../../harness/test-cluster.ts';
import { startOperatorEnv, type OperatorEnv, type SluiceObject } from '../operator/support.ts';
import type { AlertSpec } from '../../../src/kinds/alert/schema.ts';
import { withReferencedIds } from '../../../src/kinds/alert/mapping.ts';
import type { SavedSearchSpec } from '../../../src/kinds/saved-search/schema.ts';
import { withSourceId } from '../../../src/kinds/saved-search/mapping.ts';

/** What kstatus must say where Argo CD says `health`: the two tools agree on every state. */
function kstatusFor(health: HealthStatus, name: string): string[] {
  if (name === 'deleting') return ['Terminating'];
  switch (health) {
    case 'Healthy':
      return ['Current'];
    case 'Degraded':
      return ['Failed'];
    case 'Progressing':
      return ['InProgress'];
    // kstatus has no word for paused: it reads the Ready condition as it stands.
    default:
      return ['Current', 'InProgress'];
  }
}

describe('kstatus over every Argo CD fixture: Current when Argo CD says Healthy, Failed when Degraded, InProgress when Progressing', () => {
  const cases = KINDS.flatMap((schema) => healthCasesOf(schema).map((c) => ({ kind: schema.kind, ...c })));
  const results = kstatusOf(cases.map((c) => c.object(c.kind)));

  it.each(cases.map((c, i) => ({ ...c, i })))(
    '$kind $name: Argo CD $expected.status',
    ({ i, name, expected }) => {
      expect(kstatusFor(expected.status, name)).toContain(results[i]!.status);
      // Failed carries the message Argo CD shows: the one a person needs to act on.
      if (results[i]!.status === 'Failed') expect(results[i]!.message).toBe(expected.message);
    },
  );
});

type Example = KubernetesObject & { spec?: Record<string, unknown> };
const examplesDir = join(repoRoot, 'deploy', 'examples');
const examples: Example[] = readdirSync(examplesDir)
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(examplesDir, file), 'utf8')).map((d) => d.toJS() as Example),
  );
const isSluice = (o: Example) => o.apiVersion?.startsWith('sluice.dev/') === true;

type Live = SluiceObject & KubernetesObject & { metadata: { deletionTimestamp?: string } };
interface Sample {
  key: string;
  kstatus: string;
  ready: boolean;
  object: Live;
}

const readyNow = (o: Live) =>
  o.status?.conditions?.some(
    (c) =>
      c.type === 'Ready' &&
      c.status === 'True' &&
      (c as { observedGeneration?: number }).observedGeneration === o.metadata.generation,
  ) === true;

describe.skipIf(clusterSkipReason())(
  'kstatus on live objects of every kind, as the operator writes them',
  () => {
    let env: OperatorEnv;
    const samples: Sample[] = [];

    /** Reads `objects` every 100 ms and computes kstatus over them, until `done` holds for all of them. */
    async function follow(
      objects: Example[],
      what: string,
      done: (s: Sample) => boolean,
      timeoutMs = 90_000,
    ) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const live = await Promise.all(
          objects.map(async (o) => (await env.of<Live>(o.kind!).get(o.metadata!.name!))!),
        );
        const verdicts = kstatusOf(live);
        const now = live.map((object, i) => ({
          key: `${object.kind}/${object.metadata.name}`,
          kstatus: verdicts[i]!.status,
          ready: readyNow(object),
          object,
        }));
        samples.push(...now);
        if (now.every(done)) return now;
        if (Date.now() > deadline) {
          throw new Error(
            `timed out waiting for ${what}: ${JSON.stringify(now.map((s) => [s.key, s.kstatus]))}`,
          );
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const seen = (key: string) => samples.filter((s) => s.key === key).map((s) => s.kstatus);
    const create = (o: Example, name = o.metadata!.name!) =>
      env.objects.create({ ...o, metadata: { name, namespace: env.namespace } } as never);

    // A service that signs in with a team key's Secret (credentialsRef) needs that ApiKey made first, which the
    // refusing cloud below never does: the services here use the operator's credentials.
    const services = examples.filter(
      (o) =>
        o.kind === 'DatabaseService' &&
        (o as { spec?: { credentialsRef?: unknown } }).spec?.credentialsRef === undefined,
    );
    const dependants = examples.filter((o) => isSluice(o) && o.kind !== 'DatabaseService');
    const refusedService = { ...services[1]!, metadata: { name: 'refused' } };
    // The examples' alerts name a Webhook, a Dashboard and a SavedSearch, and the saved search a Source: while
    // the cloud refuses those, they wait for them (InProgress). An alert and a search by cloud ids meet the
    // refusal themselves.
    const naming = dependants.filter((o) => o.kind === 'Alert' || o.spec?.sourceRef !== undefined);
    const exampleAlert = naming.find((o) => o.kind === 'Alert')! as Example & { spec: AlertSpec };
    const alertByIds = {
      ...exampleAlert,
      metadata: { name: 'refused-alert' },
      spec: withReferencedIds(exampleAlert.spec, {
        webhookId: 'w',
        dashboardId: 'd',
        tileId: 't',
        savedSearchId: 's',
      }),
    };
    const exampleSearch = naming.find((o) => o.kind === 'SavedSearch')! as Example & {
      spec: SavedSearchSpec;
    };
    const searchById = {
      ...exampleSearch,
      metadata: { name: 'refused-search' },
      spec: withSourceId(exampleSearch.spec, 's'),
    };
    const byIds = [alertByIds, searchById];
    const refusedItself = [...dependants.filter((o) => !naming.includes(o)), ...byIds, refusedService];

    beforeAll(async () => {
      env = await startOperatorEnv('kstatus', { transitionMs: 1500 });
      // Polls once a second: a resource the cloud makes at once still shows Creating for that long, so the
      // samples see it (the default 200 ms of these tests is shorter than a sampling round under load).
      await env.startOperator({ pollInterval: '1s' });
    });
    afterAll(async () => env?.close());

    it('the examples hold every kind', () => {
      expect(new Set(examples.filter(isSluice).map((o) => o.kind))).toEqual(new Set(healthCheckKinds()));
    });

    it('DatabaseService: InProgress from the moment it is applied while the cloud creates it, Current once Ready', async () => {
      for (const service of services) await create(service);
      await follow(services, 'the services Current', (s) => s.kstatus === 'Current');
      for (const service of services) {
        const key = `DatabaseService/${service.metadata!.name}`;
        expect(seen(key)[0]).toBe('InProgress');
        expect(seen(key)).not.toContain('Failed');
      }
    });

    it('every kind: Failed while the cloud refuses its create (400), with the reason Argo CD shows as Degraded', async () => {
      for (const o of examples.filter((e) => e.kind === 'Secret')) await create(o);
      await env.fault({ method: 'POST', status: 400 });
      for (const o of [...dependants, ...byIds]) await create(o);
      await create(refusedService);

      const failed = await follow(refusedItself, 'every kind Failed', (s) => s.kstatus === 'Failed');
      const waiting = await follow(naming, 'the objects naming them wait', (s) => s.kstatus === 'InProgress');
      for (const { key, object } of waiting)
        expect(object.status?.conditions, key).toContainEqual(
          expect.objectContaining({ type: 'Ready', status: 'False', reason: 'WaitingForReference' }),
        );
      for (const { key, object } of failed) {
        expect(object.status?.conditions, key).toContainEqual(
          expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'CloudRequestRejected' }),
        );
        expect(argoHealthOf(object).status, key).toBe('Degraded');
      }
      expect(new Set(failed.map((s) => s.object.kind))).toEqual(new Set(healthCheckKinds()));
    });

    it('every kind: InProgress again once the cloud takes the create, then Current when Ready', async () => {
      const refused = [...refusedItself, ...naming];
      const failedUpTo = samples.length;
      await env.fault();

      const current = await follow(refused, 'every kind Current', (s) => s.kstatus === 'Current');
      for (const { key, object } of current) {
        const after = samples.slice(failedUpTo).filter((s) => s.key === key);
        expect(
          after.map((s) => s.kstatus),
          key,
        ).toContain('InProgress');
        expect(
          object.status?.conditions?.map((c) => c.type),
          key,
        ).not.toContain('Stalled');
        expect(
          object.status?.conditions?.map((c) => c.type),
          key,
        ).not.toContain('Reconciling');
        expect(argoHealthOf(object).status, key).toBe('Healthy');
      }
    });

    it('kstatus said Current of no object before its Ready=True for the generation it read', () => {
      expect(samples.length).toBeGreaterThan(0);
      const early = samples.filter((s) => s.kstatus === 'Current' && !s.ready);
      expect(early.map((s) => [s.key, s.object.status])).toEqual([]);
    });
  },
);
