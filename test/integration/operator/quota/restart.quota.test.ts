import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, startOperatorEnv, TIME_SCALE, type OperatorEnv } from '../support.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
// The cloud is read in-process (env.emulator.store), not through its API: a read of ours would spend the very
// budget under test.

const variants = [
  {
    name: 'under the real quota (10 requests / 10 s per key, the emulator limiting too)',
    emulator: { rateLimit: { requests: 10, windowSeconds: 10 } },
    flags: ['--management-quota=10/10s'],
    // Enough that most creates outlive the first process's window; each one more costs real seconds.
    resources: 12,
    readyWithinMs: 240_000,
  },
  {
    // The same algorithm on time ten times faster in both processes: the child's --time-scale makes the
    // restart's "predecessor spent one window" wait 1 s, as the emulator's window is.
    name: `under the real quota on ${TIME_SCALE}× time (10 requests / 1 s, --time-scale=${TIME_SCALE} on both sides)`,
    emulator: { rateLimit: undefined, timeScale: TIME_SCALE },
    flags: [`--time-scale=${TIME_SCALE}`, '--management-quota=10/1s'],
    resources: 20,
    readyWithinMs: 60_000,
  },
  {
    name: 'with the quota lifted (1000 requests / 1 s on both sides)',
    emulator: { rateLimit: { requests: 1000, windowSeconds: 1 } },
    flags: ['--management-quota=1000/1s'],
    resources: 20,
    readyWithinMs: 60_000,
  },
];

describe.skipIf(clusterSkipReason())('an operator killed while busy and started again at once', () => {
  describe.each(variants)('$name', ({ emulator, flags, resources: RESOURCES, readyWithinMs }) => {
    let env: OperatorEnv;
    const processes: ChildProcess[] = [];

    beforeAll(async () => {
      env = await startOperatorEnv('restart-quota', emulator);
    });
    afterAll(async () => {
      for (const child of processes) child.kill('SIGKILL');
      await env?.close();
    });

    it(
      'earns no 429 for the requests of the process it replaced, and creates every service once',
      { timeout: readyWithinMs + 60_000 },
      async () => {
        await Promise.all(
          Array.from({ length: RESOURCES }, (_, i) => env.apply(`db-${i}`, { name: `db ${i}` })),
        );
        const first = env.spawnOperator(flags);
        processes.push(first);
        // Killed as soon as it has spent a whole window's budget, most of its creates still to do.
        const deadline = Date.now() + 60_000;
        while ((await env.calls()).length < 10 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
        }
        const exited = new Promise((resolve) => first.once('exit', resolve));
        first.kill('SIGKILL');
        await exited;
        const callsOfTheFirst = (await env.calls()).length;
        expect(callsOfTheFirst).toBeGreaterThanOrEqual(10);
        expect(env.emulator.store.services.size).toBeLessThan(RESOURCES);

        processes.push(env.spawnOperator(flags));
        const ready = await Promise.all(
          Array.from({ length: RESOURCES }, (_, i) =>
            env.waitFor(
              `db-${i}`,
              'Ready after the restart',
              (r) => isReady(r) && !!r?.status?.id,
              readyWithinMs,
            ),
          ),
        );

        const log = await env.calls();
        expect(log.filter((c) => c.status === 429)).toEqual([]);
        const services = [...env.emulator.store.services.keys()];
        expect(services).toHaveLength(RESOURCES);
        expect(new Set(services)).toEqual(new Set(ready.map((r) => r.status!.id)));
        expect(log.filter((c) => c.method === 'POST' && c.route === SERVICES && c.status < 300)).toHaveLength(
          RESOURCES,
        );
      },
    );
  });
});
