// `npm run bench:operator`: the operator end to end on the real control plane against the emulator
// (--transition-ms 0). Prints time from apply to Ready and cloud calls per create, for services and for
// kafka pipes (into one running service) applied one at a time and in a burst, and a burst under the cloud's
// real 10 requests / 10 s limit (which must earn no 429). Numbers, not assertions: run it and read them.
import { parseArgs } from 'node:util';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startEmulator, type Emulator } from '../src/emulator/server.ts';
import { OperatorConfig, type OperatorFlags } from '../src/operator/config.ts';
import { startOperator } from '../src/operator/run.ts';
import { startControlPlane } from '../tools/cluster/control-plane.ts';

const { values: args } = parseArgs({
  options: {
    sequential: { type: 'string', default: '10' },
    burst: { type: 'string', default: '50' },
    'quota-burst': { type: 'string', default: '10' },
    pipes: { type: 'string', default: '10' },
  },
});

interface Call {
  method: string;
  route: string;
  status: number;
}

const cluster = await startControlPlane();
const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfig);
const core = kc.makeApiClient(CoreV1Api);
const objects = KubernetesObjectApi.makeApiClient(kc);
let scenario = 0;

/** One namespace, emulator and operator per scenario; returns per-resource apply→Ready times and the calls. */
async function run(count: number, mode: 'sequential' | 'burst', real: boolean, kind = 'DatabaseService') {
  const namespace = `bench-${++scenario}`;
  const emulator: Emulator = await startEmulator({
    port: 0,
    transitionMs: 0,
    logger: false,
    ...(real ? {} : { rateLimit: 'off' as const }),
  });
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const { organizationId, keyId, keySecret } = emulator.credentials;
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'cloud' },
      stringData: { organizationId, keyId, keySecret, managementUrl: emulator.url },
    },
  });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'kafka' }, stringData: { username: 'bench', password: 'bench-password' } },
  });
  const flags: OperatorFlags = {
    kubeconfig: cluster.kubeconfig,
    namespace,
    credentialsSecret: `${namespace}/cloud`,
    pollInterval: '100ms',
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    ...(real ? {} : { managementQuota: 'off' }),
  };
  const operator = await startOperator(
    OperatorConfig.parse(flags),
    pino({ level: process.env.BENCH_LOG ?? 'silent' }),
  );

  // Apply all (one at a time, or at once), and watch them with one LIST per tick, so the measuring itself
  // adds little load to the two cores the apiserver, emulator and operator share.
  const appliedAt = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const apply = (name: string, kindName: string, spec: Record<string, unknown>) =>
    objects.create({
      apiVersion: 'sluice.dev/v1alpha1',
      kind: kindName,
      metadata: { name, namespace },
      spec,
    } as never);
  const serviceSpec = (i: number) => ({ name: `bench ${i}`, provider: 'aws', region: 'us-east-1' });
  const create = async (i: number) => {
    appliedAt.set(`obj-${i}`, performance.now());
    await apply(`obj-${i}`, kind, kind === 'Pipe' ? pipeSpec(i) : serviceSpec(i));
  };
  const poll = async () => {
    const list = (await objects.list('sluice.dev/v1alpha1', kind, namespace)) as {
      items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
    };
    const now = performance.now();
    for (const item of list.items) {
      const ready = item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (ready && !readyAt.has(item.metadata.name)) readyAt.set(item.metadata.name, now);
    }
  };
  if (kind === 'Pipe') {
    // The pipes' service is set up first and not counted: the numbers are per pipe.
    await apply('analytics', 'DatabaseService', serviceSpec(0));
    while (!(await isReady('DatabaseService', namespace, 'analytics')))
      await new Promise((r) => setTimeout(r, 20));
    await fetch(`${emulator.url}/_emulator/calls`, { method: 'DELETE' });
  }
  const waitForReady = async (names: number) => {
    while (readyAt.size < names) {
      await poll();
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const started = performance.now();
  if (mode === 'sequential') {
    for (let i = 0; i < count; i++) {
      await create(i);
      await waitForReady(i + 1);
    }
  } else {
    await Promise.all(Array.from({ length: count }, (_, i) => create(i)));
    await waitForReady(count);
  }
  const wallMs = performance.now() - started;
  const durations = [...readyAt].map(([name, at]) => at - appliedAt.get(name)!);

  const { calls } = (await (await fetch(`${emulator.url}/_emulator/calls`)).json()) as { calls: Call[] };
  await operator.stop();
  await emulator.stop();
  return { durations, wallMs, calls };
}

async function isReady(kind: string, namespace: string, name: string): Promise<boolean> {
  const list = (await objects.list('sluice.dev/v1alpha1', kind, namespace)) as {
    items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
  };
  return list.items.some(
    (item) =>
      item.metadata.name === name &&
      item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
}

const pipeSpec = (i: number) => ({
  serviceRef: { name: 'analytics' },
  name: `bench pipe ${i}`,
  source: {
    kafka: {
      brokers: 'broker:9092',
      topics: `topic-${i}`,
      credentialsSecretRef: { name: 'kafka' },
    },
  },
  destination: { database: 'default', table: `events_${i}` },
});

function report(title: string, count: number, result: Awaited<ReturnType<typeof run>>) {
  const sorted = [...result.durations].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const byRoute = new Map<string, number>();
  for (const call of result.calls) {
    const key = `${call.method} ${call.route.replace('/v1/organizations/:organizationId', '')}`;
    byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
  }
  const tooMany = result.calls.filter((c) => c.status === 429).length;
  console.log(`\n${title}`);
  console.log(
    `  apply→Ready  p50 ${at(0.5).toFixed(0)} ms  p95 ${at(0.95).toFixed(0)} ms  max ${sorted.at(-1)!.toFixed(0)} ms` +
      `  (all ${count} Ready in ${(result.wallMs / 1000).toFixed(1)} s)`,
  );
  console.log(`  cloud calls per create ${(result.calls.length / count).toFixed(2)}  429s ${tooMany}`);
  for (const [route, n] of [...byRoute].sort())
    console.log(`    ${route.padEnd(32)} ${(n / count).toFixed(2)} per create`);
}

const sequential = Number(args.sequential);
const burst = Number(args.burst);
const quotaBurst = Number(args['quota-burst']);
report(
  `${sequential} services applied one at a time (quota off)`,
  sequential,
  await run(sequential, 'sequential', false),
);
report(`${burst} services applied at once (quota off)`, burst, await run(burst, 'burst', false));
report(
  `${quotaBurst} services applied at once under the real limit (emulator 10/10 s, operator quota 10/10 s)`,
  quotaBurst,
  await run(quotaBurst, 'burst', true),
);
const pipes = Number(args.pipes);
report(
  `${pipes} kafka pipes applied one at a time (quota off)`,
  pipes,
  await run(pipes, 'sequential', false, 'Pipe'),
);
report(`${pipes} kafka pipes applied at once (quota off)`, pipes, await run(pipes, 'burst', false, 'Pipe'));
await cluster.stop();
