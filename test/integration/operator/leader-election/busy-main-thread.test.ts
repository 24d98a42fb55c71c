// A burst of work can hold the operator's main event loop for seconds at a time (a small CPU limit, thousands
// of objects arriving at once). Here the test holds the loop itself, longer than the Lease lasts, with a standby
// campaigning in another process and a prober polling the probes from a third: what must answer on time (the
// probes, the Lease) must not wait for the loop, and liveness must fail only for a loop that truly stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { untilValue } from '../../../support/wait.ts';
import { startOperatorEnv, TIME_SCALE, type OperatorEnv } from '../support.ts';

/** The Lease on compressed time: others take over 2 s (1.5 s, in whole seconds) after the last renewal they saw. */
const LEASE_MS = 2_000;

/** Keeps this thread, the in-process operator's main thread, busy for `ms`: the worst a burst could do. */
function holdTheMainThread(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

interface ProbeAnswer {
  /** When the prober had its answer (Date.now(), the same clock as this process's). */
  at: number;
  status: number;
  ms: number;
  body: string;
}

/** Polls `url` every 100 ms from another process until killed; each answer (or failure) is one JSON line. */
function startProber(url: string) {
  const script = `
    const url = ${JSON.stringify(url)};
    const tick = async () => {
      const started = performance.now();
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
        const body = await response.text();
        console.log(JSON.stringify({ at: Date.now(), status: response.status, ms: performance.now() - started, body }));
      } catch (error) {
        console.log(JSON.stringify({ at: Date.now(), status: 0, ms: performance.now() - started, body: String(error) + (error.cause ? ' (' + String(error.cause) + ')' : '') }));
      }
      setTimeout(tick, 100);
    };
    tick();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const answers: ProbeAnswer[] = [];
  createInterface({ input: child.stdout }).on('line', (line) =>
    answers.push(JSON.parse(line) as ProbeAnswer),
  );
  /**
   * The answers the prober had while this thread was held from `from` to `to` (Date.now()): read once an
   * answer from after the hold arrived, since this thread reads the prober's lines only when its loop turns.
   */
  const during = async (from: number, to: number) => {
    await untilValue(
      'an answer from after the hold',
      async () => answers.at(-1)?.at ?? 0,
      (at) => at > to,
    );
    return answers.filter((answer) => answer.at >= from && answer.at <= to);
  };
  return { child, answers, during };
}

/** Holds this thread for `ms`; returns when the hold began and ended (Date.now()). */
function hold(ms: number): { from: number; to: number } {
  const from = Date.now();
  holdTheMainThread(ms);
  return { from, to: Date.now() };
}

describe.skipIf(clusterSkipReason())('a main thread too busy to answer', () => {
  let env: OperatorEnv;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    env = await startOperatorEnv('busy-main');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await env.stopOperator();
  });
  afterAll(async () => env?.close());

  it('keeps the Lease and answers every probe at once while the loop is held for four times the Lease, and goes on leading', async () => {
    const leases = env.kc.makeApiClient(CoordinationV1Api);
    const readLease = () =>
      leases
        .readNamespacedLease({ name: 'sluice-operator', namespace: env.namespace })
        .catch(() => undefined);
    const operator = await env.startOperator({
      leaderElect: true,
      leaderElectionNamespace: env.namespace,
      timeScale: TIME_SCALE,
      healthProbeBindAddress: '127.0.0.1:0',
    });
    const held = await untilValue('the in-process operator to hold the Lease', readLease, (lease) =>
      Boolean(lease?.spec?.holderIdentity),
    );
    const leader = held!.spec!.holderIdentity!;

    // A standby on the same compressed time, ready to take the Lease 2 s after the last renewal it sees.
    const standby = env.spawnOperator(
      [
        '--leader-elect',
        `--leader-election-namespace=${env.namespace}`,
        `--time-scale=${TIME_SCALE}`,
        '--log-level=info',
      ],
      ['ignore', 'pipe', 'inherit'],
    );
    children.push(standby);
    let standbyLed = false;
    const campaigning = new Promise<void>((resolve) =>
      createInterface({ input: standby.stdout! }).on('line', (line) => {
        if (line.includes('"msg":"campaigning for leadership"')) resolve();
        if (line.includes('"msg":"became leader"')) standbyLed = true;
      }),
    );
    await campaigning;
    const prober = startProber(`${operator.health!.url}/healthz`);
    children.push(prober.child);
    await untilValue(
      'the prober’s first answer',
      async () => prober.answers.length,
      (n) => n > 0,
    );

    const { from, to } = hold(4 * LEASE_MS);
    const duringHold = await prober.during(from, to);

    // The probes were answered while the loop was held, each at once.
    expect(duringHold.length).toBeGreaterThanOrEqual(10);
    expect(duringHold.filter((a) => a.status !== 200)).toEqual([]);
    expect(Math.max(...duringHold.map((a) => a.ms))).toBeLessThan(1_000);
    // The Lease was renewed all along: the standby never took it, and this process still leads.
    const after = await readLease();
    expect(after?.spec?.holderIdentity).toBe(leader);
    expect(after?.spec?.leaseTransitions).toBe(held!.spec!.leaseTransitions);
    expect(standbyLed).toBe(false);
    await env.apply('after-the-hold', { name: 'after the hold' });
    await env.waitFor('after-the-hold', 'Ready after the hold', (s) =>
      Boolean(s?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')),
    );
    const ended = await Promise.race([operator.done, Promise.resolve('still running')]);
    expect(ended).toBe('still running');
  });

  it('fails /healthz, naming the event loop, only while the loop has not turned for longer than --stall-timeout', async () => {
    const operator = await env.startOperator({ healthProbeBindAddress: '127.0.0.1:0', stallTimeout: '1s' });
    const prober = startProber(`${operator.health!.url}/healthz?verbose`);
    children.push(prober.child);
    await untilValue(
      'the prober’s first answer',
      async () => prober.answers.length,
      (n) => n > 0,
    );

    const { from, to } = hold(3_000);
    const duringHold = await prober.during(from, to);
    // Healthy for the first second of the hold, stuck after it: one answer each way at least.
    expect(duringHold.some((a) => a.status === 200)).toBe(true);
    const stuck = duringHold.filter((a) => a.status === 500);
    expect(stuck.length).toBeGreaterThan(0);
    expect(stuck[0]!.body).toMatch(/\[-\]event-loop failed: the main event loop has not turned for \d+ s/);
    // The loop turns again: healthy again at the next answers.
    await untilValue(
      'a healthy answer after the hold',
      async () => prober.answers.filter((answer) => answer.at > to),
      (answers) => answers.some((answer) => answer.status === 200),
    );
  });
});
