import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { isReady, startOperatorEnv, type OperatorEnv } from '../support.ts';
import { until } from '../../../support/wait.ts';

const SERVICES = '/v1/organizations/:organizationId/services';
const LEASE = 'sluice-operator';
const RESOURCES = 20;

interface ProxiedCall {
  at: number;
  method: string;
  path: string;
}

/** Forwards to the emulator and notes when each call arrived: tells the two operators' calls apart. */
async function startProxy(
  target: string,
): Promise<{ url: string; calls: ProxiedCall[]; close(): Promise<void> }> {
  const calls: ProxiedCall[] = [];
  const server = http.createServer((request, response) => {
    calls.push({ at: Date.now(), method: request.method!, path: request.url! });
    const upstream = http.request(
      new URL(request.url!, target),
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    // A caller that gives up (an aborted call) takes its request to the emulator down with it.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A `sluice run --leader-elect` process whose log lines are watched for leadership. */
function startOperatorProcess(env: OperatorEnv, credentials: string, quotaFlags: string[]) {
  const child: ChildProcess = env.spawnOperator(
    [
      `--credentials-secret=${env.namespace}/${credentials}`,
      '--leader-elect',
      `--leader-election-namespace=${env.namespace}`,
      '--log-level=info',
      ...quotaFlags,
    ],
    ['ignore', 'pipe', 'inherit'],
  );
  let leading!: () => void;
  const becameLeader = new Promise<void>((resolve) => (leading = resolve));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.includes('"msg":"became leader"')) leading();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, becameLeader, exited };
}

const variants = [
  {
    name: 'under the real quota (10 requests / 10 s per key, the emulator limiting too)',
    emulator: { rateLimit: { requests: 10, windowSeconds: 10 } },
    flags: ['--management-quota=10/10s'],
    // Once its first window's 10 calls are spent, the old leader's reconciles queue for the next window.
    sigtermAfterCalls: 10,
    readyWithinMs: 200_000,
  },
  {
    name: 'with the quota lifted',
    emulator: { rateLimit: 'off' as const },
    flags: ['--management-quota=off'],
    sigtermAfterCalls: 10,
    readyWithinMs: 60_000,
  },
];

describe.skipIf(clusterSkipReason())('leader hand-over under load', () => {
  describe.each(variants)('$name', ({ emulator, flags, sigtermAfterCalls, readyWithinMs }) => {
    let env: OperatorEnv;
    const proxies: Array<Awaited<ReturnType<typeof startProxy>>> = [];
    const processes: ChildProcess[] = [];

    beforeAll(async () => {
      env = await startOperatorEnv('handover', emulator);
      for (const name of ['creds-old', 'creds-new']) {
        const proxy = await startProxy(env.emulator.url);
        proxies.push(proxy);
        const { credentials } = env.emulator;
        await env.core.createNamespacedSecret({
          namespace: env.namespace,
          body: {
            metadata: { name },
            stringData: {
              organizationId: credentials.organizationId,
              keyId: credentials.keyId,
              keySecret: credentials.keySecret,
              managementUrl: proxy.url,
            },
          },
        });
      }
    });
    afterAll(async () => {
      for (const child of processes) child.kill('SIGKILL');
      await Promise.all(proxies.map((p) => p.close()));
      await env?.close();
    });

    it(
      'SIGTERM to the leader during 20 creates: no call of the old leader after the new one took the Lease, no duplicate',
      { timeout: readyWithinMs + 60_000 },
      async () => {
        const [oldProxy, newProxy] = proxies as [(typeof proxies)[0], (typeof proxies)[0]];
        const old = startOperatorProcess(env, 'creds-old', flags);
        processes.push(old.child);
        await old.becameLeader;
        const next = startOperatorProcess(env, 'creds-new', flags);
        processes.push(next.child);

        await Promise.all(
          Array.from({ length: RESOURCES }, (_, i) => env.apply(`db-${i}`, { name: `db ${i}` })),
        );
        // Stopped mid-work: its first calls made, creates among them, the rest of the 20 still to come.
        await until(
          `the old leader's first ${sigtermAfterCalls} calls, a create among them`,
          () => oldProxy.calls.length >= sigtermAfterCalls && oldProxy.calls.some((c) => c.method === 'POST'),
          30_000,
          10,
        );
        old.child.kill('SIGTERM');
        expect(await old.exited).toBe(0);

        await next.becameLeader;
        const lease = await env.kc
          .makeApiClient(CoordinationV1Api)
          .readNamespacedLease({ name: LEASE, namespace: env.namespace });
        const takenAt = new Date(lease.spec!.acquireTime!).getTime();

        const ready = await Promise.all(
          Array.from({ length: RESOURCES }, (_, i) =>
            env.waitFor(`db-${i}`, 'Ready after the hand-over', isReady, readyWithinMs),
          ),
        );

        // The old leader's calls all arrived before the new leader took the Lease ...
        expect(oldProxy.calls.filter((c) => c.method === 'POST').length).toBeGreaterThan(0);
        const lateCalls = oldProxy.calls.filter((c) => c.at >= takenAt);
        expect(lateCalls).toEqual([]);
        // ... and the emulator's own log agrees: every call after acquireTime is the new leader's.
        const log = await env.calls();
        expect(log).toHaveLength(oldProxy.calls.length + newProxy.calls.length);
        const afterTakeOver = log.filter((c) => Date.parse(c.timestamp) >= takenAt).length;
        expect(afterTakeOver).toBeLessThanOrEqual(newProxy.calls.length);
        expect(newProxy.calls.filter((c) => c.at < takenAt)).toEqual([]);

        // The new leader waited out the old one's window: no 429 for requests it did not make.
        expect(log.filter((c) => c.status === 429)).toEqual([]);
        // Exactly one service per resource.
        const services = await env.cloud.listServices();
        expect(services).toHaveLength(RESOURCES);
        expect(new Set(ready.map((r) => r.status!.id)).size).toBe(RESOURCES);
        expect(new Set(services.map((s) => s.id))).toEqual(new Set(ready.map((r) => r.status!.id)));
        expect(log.filter((c) => c.method === 'POST' && c.route === SERVICES && c.status < 300)).toHaveLength(
          RESOURCES,
        );
      },
    );
  });
});
