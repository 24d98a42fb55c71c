// Two clusters at once: a second, independent control plane (started once for the file) next to the shared
// one, each with its own operator and --cluster-name, both on one emulator organization, with equal namespace
// names and manifests (two-clusters.ts).
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT } from '../../../../tools/fixtures/alert.ts';
import { startControlPlane, type ControlPlane } from '../../../../tools/cluster/control-plane.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { until } from '../../../support/wait.ts';
import { applyAll, MANIFESTS } from './ownership-fixtures.ts';
import { isReady, QUOTA_MODES, writes, type OperatorEnv } from '../support.ts';
import { startPair, stopPair, touching, type Side } from './two-clusters.ts';

const OWNER_CLUSTER = 'sluice.dev/owner-cluster';
const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';
const SERVICES = ['analytics', 'reports'];

/** What each cloud object records of its owner: a service's owner tag, an alert's note. */
function records(env: OperatorEnv, ids: Record<string, string>) {
  const store = env.emulator.store;
  return {
    ...Object.fromEntries(
      SERVICES.map((name) => [
        name,
        store.services.get(ids[`DatabaseService/${name}`]!)?.tags.find((t) => t.key === 'sluice.dev/owner')
          ?.value,
      ]),
    ),
    cpu: store.alerts.get(ids['Alert/cpu']!)?.note,
  };
}

const recorded = (cluster: string, namespace: string) => ({
  analytics: `${cluster}/${namespace}/DatabaseService/analytics`,
  reports: `${cluster}/${namespace}/DatabaseService/reports`,
  cpu: `sluice.dev/owner: ${cluster}/${namespace}/Alert/cpu`,
});

const servicePath = (env: OperatorEnv, id: string) =>
  `/v1/organizations/${env.emulator.credentials.organizationId}/services/${id}`;

describe.skipIf(clusterSkipReason())('two clusters running at once on one organization', () => {
  let second: ControlPlane;

  beforeAll(async () => {
    second = await startControlPlane();
  }, 120_000);
  afterAll(async () => second?.stop());

  for (const quota of QUOTA_MODES) {
    describe(quota.mode, () => {
      const timeoutMs = quota.lifted ? 60_000 : 300_000;

      describe('equal namespaces, names and manifests applied to both at the same time', () => {
        let pair: { a: Side; b: Side };

        beforeAll(async () => {
          pair = await startPair('side-by-side', second, quota.emulator);
          await pair.a.env.startOperator({ ...quota.operator, clusterName: 'a' });
          await pair.b.env.startOperator({ ...quota.operator, clusterName: 'b' });
        }, 60_000);
        afterAll(async () => stopPair(pair));

        it(
          'each creates and manages its own objects, records its own name, and never calls the other’s',
          async () => {
            const { a, b } = pair;
            const [idsA, idsB] = await Promise.all([
              applyAll(a.env, {}, timeoutMs),
              applyAll(b.env, {}, timeoutMs),
            ]);
            for (const key of Object.keys(idsA)) expect(idsB[key], key).not.toBe(idsA[key]);
            expect(records(a.env, idsA)).toEqual(recorded('a', a.env.namespace));
            expect(records(b.env, idsB)).toEqual(recorded('b', b.env.namespace));
            // Each created every kind once, for itself. The two clusters share the key's 10 requests / 10 s
            // without knowing of each other, so a create may be refused with a 429 and sent again: count the
            // creates the cloud made.
            const creates = (side: Side) =>
              side.proxy.calls().filter((c) => c.method === 'POST' && c.status >= 200 && c.status < 300)
                .length;
            expect(creates(a)).toBe(MANIFESTS.length);
            expect(creates(b)).toBe(MANIFESTS.length);

            // Both manage theirs: the same change in both clusters is one write each, to its own service.
            const changed = Date.now();
            const tags = [{ key: 'team', value: 'data' }];
            await Promise.all([a, b].map(({ env }) => env.patchSpec('analytics', { tags })));
            for (const [side, ids] of [
              [a, idsA],
              [b, idsB],
            ] as const) {
              const id = ids['DatabaseService/analytics']!;
              await side.env.waitFor(
                'analytics',
                'the tag applied',
                (r) =>
                  isReady(r) &&
                  r?.status?.observedGeneration === r?.metadata.generation &&
                  !!side.env.emulator.store.services.get(id)?.tags.some((t) => t.key === 'team'),
                timeoutMs,
              );
            }
            // Each looks at the cloud afresh once more: a second write would have gone out by then.
            for (const { env } of [a, b]) await env.freshLook('DatabaseService', 'analytics', timeoutMs);
            for (const [side, ids] of [
              [a, idsA],
              [b, idsB],
            ] as const) {
              const sent = side.proxy.calls().filter((c) => c.at >= changed && c.method !== 'GET');
              expect(sent.map((c) => `${c.method} ${c.path}`)).toEqual([
                `PATCH ${servicePath(side.env, ids['DatabaseService/analytics']!)}`,
              ]);
            }

            // Over the whole run, no call of one cluster named an object of the other.
            expect(touching(a.proxy.calls(), idsB)).toEqual([]);
            expect(touching(b.proxy.calls(), idsA)).toEqual([]);
          },
          2 * timeoutMs,
        );
      });

      describe('handing objects over from a to b while both run', () => {
        let pair: { a: Side; b: Side };
        let ids: Record<string, string>;

        beforeAll(async () => {
          pair = await startPair('handover', second, quota.emulator);
          await pair.a.env.startOperator({ ...quota.operator, clusterName: 'a' });
          // b's administrator lets it take over a's objects: the annotation alone would be refused.
          await pair.b.env.startOperator({ ...quota.operator, clusterName: 'b', takeOverFrom: 'a' });
          ids = await applyAll(pair.a.env, {}, timeoutMs);
        }, 2 * timeoutMs);
        afterAll(async () => stopPair(pair));

        it(
          'a releases (Orphan, then delete) and b takes back under a’s name with zero writes; moving the record to b is one write per record, from b; a never again sends a call for them',
          async () => {
            const { a, b } = pair;
            const { namespace } = a.env;
            await a.env.clearCalls();

            // 1. a releases: its finalizers let go without a cloud call.
            for (const { kind, name } of [...MANIFESTS].reverse()) {
              await a.env.of(kind).patchSpec(name, { deletionPolicy: 'Orphan' });
              await a.env.of(kind).remove(name);
              await a.env.of(kind).waitFor(name, 'released', (o) => o === undefined);
            }
            const released = Date.now();
            expect(writes(await a.env.calls())).toEqual([]);

            // 2. b takes back under a's name while a keeps running: no create, no write by either.
            expect(await applyAll(b.env, { [OWNER_CLUSTER]: 'a' }, timeoutMs)).toEqual(ids);
            expect(writes(await a.env.calls())).toEqual([]);
            expect(records(b.env, ids)).toEqual(recorded('a', namespace));

            // 3. b moves the record to its own name: one tag PATCH per service, one PUT of the alert's note.
            for (const { kind, name } of MANIFESTS)
              await b.env.of(kind).annotate(name, { [OWNER_CLUSTER]: null });
            await until(
              'the records naming b',
              () => isDeepStrictEqual(records(b.env, ids), recorded('b', namespace)),
              timeoutMs,
            );
            // b looks at each object afresh once more: a second write for any would have gone out by then.
            for (const { kind, name } of MANIFESTS) await b.env.freshLook(kind, name, timeoutMs);
            // a's drift reads and b's writes share the key's window without knowing of each other, so a write
            // refused with a 429 is sent again: count the writes the cloud answered otherwise.
            const moved = writes(await a.env.calls()).filter((c) => c.status !== 429);
            expect(moved.map((c) => `${c.method} ${c.route}`).sort()).toEqual(
              [`PATCH ${SERVICE}`, `PATCH ${SERVICE}`, `PUT ${ALERT}`].sort(),
            );
            expect(
              b.proxy.calls().filter((c) => c.at >= released && c.method !== 'GET' && c.status !== 429),
            ).toHaveLength(3);

            // Once the record names b, the same name applied in a again is a's own new object.
            await a.env.apply('analytics', { name: 'analytics' });
            const again = await a.env.waitFor(
              'analytics',
              'Ready',
              (r) => isReady(r) && !!r?.status?.id,
              timeoutMs,
            );
            expect(again.status!.id).not.toBe(ids['DatabaseService/analytics']);
            expect(
              touching(
                a.proxy.calls().filter((c) => c.at >= released),
                ids,
              ),
            ).toEqual([]);
          },
          3 * timeoutMs,
        );
      });
    });
  }
});
