import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  helmTemplate,
  operatorArgs,
  parseManifests,
  spawnSluiceRun,
  type RunningSluice,
} from '../../../../tools/cluster/install.ts';
import { logTail } from '../../../../tools/cluster/processes.ts';
import { clusterSkipReason, testKubeconfigPath } from '../../../harness/test-cluster.ts';
import { CREDENTIALS_SECRET, isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const RESOURCES = 20;
// The cloud is read in-process (env.emulator.store), not through its API: a read of ours would spend the very
// budget under test.

const variants = [
  {
    name: 'under the real quota (the chart default 10/10s, the emulator limiting too)',
    emulator: { rateLimit: { requests: 10, windowSeconds: 10 } },
    operator: {},
    // About 50 s: 20 creates and the reads share 1 request/s, after one window the new pod waits out for the
    // old one's calls. The bound only ends a test that is failing, on a machine loaded by other work.
    readyWithinMs: 420_000,
  },
  {
    name: 'with the quota lifted (1000 requests / 1 s on both sides)',
    emulator: { rateLimit: { requests: 1000, windowSeconds: 1 } },
    operator: { managementQuota: '1000/1s' },
    readyWithinMs: 60_000,
  },
];

/** The address the operator logged it serves its health probes at, once it has. */
function probesUrl(log: string): string | undefined {
  for (const line of log.split('\n')) {
    if (line.includes('"msg":"serving metrics and health probes"')) {
      return (JSON.parse(line) as { healthProbes?: string }).healthProbes;
    }
  }
  return undefined;
}

describe.skipIf(clusterSkipReason())(
  'a rollout of the chart: the new pod starts, then the old one gets SIGTERM',
  () => {
    describe.each(variants)('$name', ({ emulator, operator, readyWithinMs }) => {
      let env: OperatorEnv;
      let dir: string;
      const processes: RunningSluice[] = [];

      beforeAll(async () => {
        env = await startOperatorEnv('rollout', emulator);
        dir = mkdtempSync(join(tmpdir(), 'sluice-rollout-'));
      });
      afterAll(async () => {
        await Promise.all(processes.map((p) => p.stop()));
        await env?.close();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it(
        'with 20 creates in flight: no duplicate service, no 429',
        { timeout: readyWithinMs + 90_000 },
        async () => {
          // The chart's default Deployment, released into the test namespace and watching it.
          const args = operatorArgs(
            parseManifests(
              helmTemplate({
                namespace: env.namespace,
                values: {
                  watchNamespace: env.namespace,
                  credentials: { existingSecret: CREDENTIALS_SECRET },
                  operator: { pollInterval: '200ms', ...operator },
                },
              }),
            ),
          );
          const log = (running: RunningSluice) => {
            try {
              return readFileSync(running.logFile, 'utf8');
            } catch {
              return '';
            }
          };
          // A failed wait shows what the pod said: a pod that never started looks like one that is slow.
          const withLog = (running: RunningSluice) => (error: Error) => {
            throw new Error(
              `${error.message}\n--- the last lines of ${running.logFile}:\n${logTail(running, 30)}`,
            );
          };
          const pod = (name: string) => {
            // Probes on a port of the system's choosing, read back from the log: a port picked beforehand can be
            // taken by another process before the pod binds it.
            const running = spawnSluiceRun({
              args,
              kubeconfig: testKubeconfigPath()!,
              logFile: join(dir, `${name}.log`),
            });
            processes.push(running);
            const ready = async () => {
              const url = probesUrl(log(running));
              return (
                url !== undefined &&
                (await fetch(`${url}/readyz`).then(
                  (r) => r.ok,
                  () => false,
                ))
              );
            };
            return { ...running, ready };
          };
          // Creates stay in flight: the cloud takes 5 s to act on one, so a second reconciler looking for it by
          // its tag meanwhile finds nothing.
          await env.fault({ method: 'POST', route: SERVICES, latencyMs: 5_000 });

          const old = pod('old');
          await Promise.all(
            Array.from({ length: RESOURCES }, (_, i) => env.apply(`db-${i}`, { name: `db ${i}` })),
          );
          await until('the old pod creating', () => env.emulator.store.services.size >= 3).catch(
            withLog(old),
          );
          expect(probesUrl(log(old))).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

          // The new pod starts while the old one still works. As a RollingUpdate would, the old one is stopped
          // once the new one is Ready (its caches synced, its workers running) ... or, as a standby never gets
          // Ready, once it saw the old one hold the Lease.
          const next = pod('new');
          await until(
            'the new pod Ready or standing by',
            async () => (await next.ready()) || log(next).includes('"msg":"new leader observed"'),
          ).catch(withLog(next));
          expect(env.emulator.store.services.size).toBeLessThan(RESOURCES);
          old.child.kill('SIGTERM');
          await new Promise((resolve) =>
            old.child.exitCode !== null || old.child.signalCode !== null
              ? resolve(undefined)
              : old.child.once('exit', resolve),
          );

          const ready = await Promise.all(
            Array.from({ length: RESOURCES }, (_, i) =>
              env.waitFor(
                `db-${i}`,
                'Ready after the rollout',
                (r) => isReady(r) && !!r?.status?.id,
                readyWithinMs,
              ),
            ),
          );

          const calls = await env.calls();
          expect(calls.filter((c) => c.status === 429)).toEqual([]);
          const services = [...env.emulator.store.services.keys()];
          expect(services).toHaveLength(RESOURCES);
          expect(new Set(services)).toEqual(new Set(ready.map((r) => r.status!.id)));
          expect(calls.filter((c) => c.method === 'POST' && c.route === SERVICES)).toHaveLength(RESOURCES);
        },
      );
    });
  },
);
