// `npm run bench:capacity [-- --services 300 --pipes-per-service 10 --requests 10 --window-ms 100]`: what one
// key can keep drift-checked. The emulator and the operator share one limit, the real one (10 per 10 s) sped up
// by a factor k (at the defaults 10 per 100 ms: k = 100); the sync interval is the real one divided by k, so the
// calls a cycle may spend are the real ones. Speeding up the window rather than raising the requests per window
// keeps the waits for a window to open in scale too (100 per 1 s would make a write wait up to 1 s, which is
// 100 s real). The objects are created unthrottled, then the emulator (same state) and the operator are
// restarted at the scaled limit; after `--warmup-cycles` intervals, over `--cycles` sync intervals: whether
// every object was read (a GET of it, or a list it is in) within each interval, and how long spec edits made
// during the cycles took to reach the cloud, scaled back by k to the real scale.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../src/emulator/server.ts';
import { OperatorConfig } from '../src/operator/config.ts';
import { parseDurationMs } from '../src/base/duration.ts';
import { driftCoverage, type CloudObject } from './cloud-log.ts';
import { servicesWithPipes } from './mixes.ts';
import {
  applyObjectsAndWait,
  cloudCalls,
  figure,
  isMain,
  main,
  objectPath,
  percentile,
  sleep,
  startOperatorProcess,
  startStack,
  WATCH_CATCH_UP_MS,
  type Benchmark,
  type Stack,
} from './harness.ts';

const REAL_QUOTA = OperatorConfig.parse({}).managementQuota as {
  requests: number;
  windowMs: number;
};

/** The services and pipes the emulator holds, as the coverage sees them. */
function cloudObjects(stack: Stack): CloudObject[] {
  const { store } = stack.emulator;
  return [
    ...[...store.services.keys()].map((id): CloudObject => ({ kind: 'service', id })),
    ...[...store.pipes.values()].flatMap((pipes) =>
      [...pipes.values()].map((pipe): CloudObject => ({
        kind: 'pipe',
        id: pipe.id,
        serviceId: pipe.serviceId,
      })),
    ),
  ];
}

export const capacity: Benchmark = {
  name: 'capacity',
  flags: {
    services: '300',
    'pipes-per-service': '10',
    requests: String(REAL_QUOTA.requests),
    'window-ms': '100',
    'real-sync-interval': '10m',
    'warmup-cycles': '1',
    cycles: '3',
    edits: '20',
    slack: '0.05',
    'timeout-s': '1800',
  },
  async run(cluster, args) {
    const services = Number(args.services);
    const pipesPerService = Number(args['pipes-per-service']);
    const requests = Number(args.requests);
    const windowMs = Number(args['window-ms']);
    const speedup = requests / windowMs / (REAL_QUOTA.requests / REAL_QUOTA.windowMs);
    const syncMs = Math.round(parseDurationMs(args['real-sync-interval']!, '--real-sync-interval') / speedup);
    const cycles = Number(args.cycles);
    const editCount = Math.max(1, Math.min(Number(args.edits), services));
    const limit = { requests, windowSeconds: windowMs / 1000 };

    // Set-up, unthrottled: the objects are created with the quota off and a sync interval longer than the run,
    // so that what is measured is keeping them checked, not creating them under the scaled quota (where the
    // drift checks of the objects already made compete with the creates of the rest for hours).
    const stateFile = join(mkdtempSync(join(tmpdir(), 'sluice-capacity-')), 'emulator.json');
    const setupStack = await startStack(cluster, 'capacity', {
      stateFile,
      flags: { syncInterval: '24h' },
    });
    const objects = servicesWithPipes(services, pipesPerService);
    const setupStarted = performance.now();
    await applyObjectsAndWait(cluster, setupStack, objects, args['timeout-s']!);
    console.log(
      `${objects.length} objects Ready in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );
    await setupStack.operator.stop();
    await setupStack.emulator.stop();

    // The measured run: the same cloud (its state file, its port) at the scaled limit, and the operator
    // restarted at the scaled quota and sync interval. Its start-up reads every object once; the window opens
    // `warmup-cycles` sync intervals later.
    const emulator = await startEmulator({
      port: setupStack.emulator.port,
      transitionMs: 0,
      logger: false,
      stateFile,
      rateLimit: limit,
      alertsRateLimit: limit,
    });
    const operator = await startOperatorProcess(cluster, setupStack.namespace, {
      managementQuota: `${requests}/${windowMs}ms`,
      alertingQuota: `${requests}/${windowMs}ms`,
      syncInterval: `${syncMs}ms`,
    });
    const stack: Stack = {
      emulator,
      namespace: setupStack.namespace,
      operator,
      stop: async () => {
        await operator.stop();
        await emulator.stop();
      },
    };
    await sleep(Math.max(WATCH_CATCH_UP_MS, Number(args['warmup-cycles']) * syncMs));

    // The window: `cycles` sync intervals, with the edits spread evenly over it.
    const edited = objects
      .filter((o) => o.kind === 'DatabaseService')
      .filter((_, i, all) => i % Math.floor(all.length / editCount) === 0)
      .slice(0, editCount);
    const edits: Array<{ serviceId: string; name: string; at: number }> = [];
    const fromMs = Date.now();
    const toMs = fromMs + cycles * syncMs;
    for (const [i, object] of edited.entries()) {
      const dueAt = fromMs + ((i + 0.5) * (toMs - fromMs)) / edited.length;
      await sleep(Math.max(0, dueAt - Date.now()));
      const oldName = String(object.spec.name);
      const service = [...stack.emulator.store.services.values()].find((s) => s.name === oldName);
      if (!service) throw new Error(`no cloud service named ${oldName}`);
      const name = `${oldName} v2`;
      edits.push({ serviceId: service.id, name, at: Date.now() });
      await cluster.kube(
        'PATCH',
        objectPath('DatabaseService', stack.namespace, object.name),
        { spec: { name } },
        'application/merge-patch+json',
      );
    }
    await sleep(Math.max(0, toMs - Date.now()));
    // Every edit's write, waited for up to ten more intervals (an edit never written counts as never).
    const writeOf = (edit: (typeof edits)[number], calls: Awaited<ReturnType<typeof cloudCalls>>['calls']) =>
      calls.find(
        (call) =>
          call.method === 'PATCH' &&
          call.status === 200 &&
          call.path.endsWith(`/services/${edit.serviceId}`) &&
          (call.body as { name?: string } | undefined)?.name === edit.name &&
          Date.parse(call.timestamp) >= edit.at,
      );
    let calls = await cloudCalls(stack);
    const deadline = Date.now() + 10 * syncMs;
    while (edits.some((edit) => !writeOf(edit, calls.calls)) && Date.now() < deadline) {
      await sleep(200);
      calls = await cloudCalls(stack);
    }
    // The operator's own time between two checks (a reconcile, the queue) does not shrink with k: at the real
    // scale it is a sliver of the interval, here `slack` of it is allowed for it.
    const intervalMs = syncMs * (1 + Number(args.slack));
    const coverage = driftCoverage(cloudObjects(stack), calls.calls, { fromMs, toMs, intervalMs });
    await stack.stop();

    const latencies = edits.map((edit) => {
      const write = writeOf(edit, calls.calls);
      return write ? Date.parse(write.timestamp) - edit.at : Infinity;
    });
    const inWindow = calls.calls.filter((call) => {
      const at = Date.parse(call.timestamp);
      return at >= fromMs && at <= toMs && call.status !== 429;
    }).length;
    if (coverage.missed.length) {
      console.log(
        `e.g. not read within an interval: ${coverage.missed.map((o) => `${o.kind} ${o.id}`).join(', ')}`,
      );
    }
    const name = `capacity (${services} services × ${pipesPerService} pipes, ${requests}/${windowMs} ms = real × ${speedup}, sync ${syncMs / 1000} s = real ${args['real-sync-interval']})`;
    const p50 = percentile(latencies, 0.5);
    return [
      figure(name, 'objects', coverage.objects),
      figure(
        name,
        `objects not read within every sync interval (+ ${Number(args.slack) * 100} %)`,
        coverage.objects - coverage.checked,
        {
          max: 0,
        },
      ),
      figure(name, 'longest time an object went unread ÷ sync interval', coverage.maxGapMs / syncMs),
      figure(name, 'cloud calls answered per sync interval', inWindow / cycles),
      figure(name, 'calls the quota allows per sync interval', (syncMs / windowMs) * requests),
      figure(name, 'edits never written', latencies.filter((ms) => ms === Infinity).length, { max: 0 }),
      figure(name, 'p50 spec edit → cloud write (as run)', p50, { unit: 'ms' }),
      figure(name, 'p50 spec edit → cloud write, real scale', (p50 * speedup) / 1000, { unit: 's', max: 2 }),
      figure(name, '429s earned', calls.tooMany, { max: 0 }),
    ];
  },
};

if (isMain(import.meta.url)) await main(capacity);
