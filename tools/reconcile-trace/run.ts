// `npm run trace:reconcile`: which of sluice's files one reconcile passes through, from the reconciler to the
// PATCH it sends. The real operator runs on the real control plane against the emulator (in this process, not
// traced); one DatabaseService is made and Ready, then its name is changed. From the first line the reconciler
// runs in the reconcile that sends the PATCH of the service until that PATCH leaves (undici's
// `undici:request:create`), every time control reaches one of the files in that reconcile's own async context
// (a function entered, named in `--sequence`, a call, an await or a yield returning to it; hooks.mjs) is recorded: the informers'
// and other reconciles' work meanwhile is not. Printed: the files visited, the returns to a file already left, the visits on the way down (calls into a file) per file
// and the re-entries per file, of the median of `--changes` changes (`--sequence`: the files in order).
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { pino } from 'pino';
import { startEmulator } from '../../src/emulator/server.ts';
import { OperatorConfig } from '../../src/operator/config.ts';
import { startOperator } from '../../src/operator/run.ts';
import { startControlPlane } from '../cluster/control-plane.ts';
import { visitsOf, type Step, type Visits } from './visits.ts';

const { values: args } = parseArgs({
  options: { changes: { type: 'string', default: '5' }, sequence: { type: 'boolean', default: false } },
});

const RECONCILER = 'src/managed/reconciler.ts';
const GROUP = { group: 'sluice.dev', version: 'v1alpha1', plural: 'databaseservices' };
const namespace = 'trace';

/** One reconcile begun once a spec change was applied: the files control reached in it, in order. */
interface Reconcile {
  files: Step[];
}
const current = new AsyncLocalStorage<Reconcile>();
let armed = false;
let traced: Reconcile | undefined;
const hooks = globalThis as {
  __sluiceTrace?: (file: string, entered: boolean, fn?: string) => void;
  __sluiceTraceReconcile?: (run: () => Promise<unknown>) => Promise<unknown>;
};
hooks.__sluiceTrace = (file, entered, fn) => current.getStore()?.files.push({ file, entered, fn });
hooks.__sluiceTraceReconcile = (run) => (armed && !traced ? current.run({ files: [] }, run) : run());

const cluster = await startControlPlane();
const emulator = await startEmulator({ port: 0, transitionMs: 0, logger: false, rateLimit: 'off' });
let patched: (() => void) | undefined;
subscribe('undici:request:create', (message) => {
  const { request } = message as { request: { origin: string; method: string } };
  const reconcile = current.getStore();
  if (!reconcile || traced || request.method !== 'PATCH' || request.origin !== emulator.url) return;
  // The reconcile that sends the PATCH: what it ran until now is the trace.
  traced = { files: [...reconcile.files] };
  patched?.();
});

const kc = new KubeConfig();
kc.loadFromFile(cluster.kubeconfig);
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);
const operator = await (async () => {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const { organizationId, keyId, keySecret } = emulator.credentials;
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: 'cloud' },
      stringData: { organizationId, keyId, keySecret, managementUrl: emulator.url },
    },
  });
  const flags = {
    kubeconfig: cluster.kubeconfig,
    namespace,
    credentialsSecret: `${namespace}/cloud`,
    pollInterval: '100ms',
    syncInterval: '1h',
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    managementQuota: 'off',
  };
  return startOperator(OperatorConfig.parse(flags), pino({ level: 'silent' }));
})();

try {
  await custom.createNamespacedCustomObject({
    ...GROUP,
    namespace,
    body: {
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'DatabaseService',
      metadata: { name: 'analytics' },
      spec: { name: 'analytics', provider: 'aws', region: 'us-east-1' },
    },
  });
  await until(async () => {
    const object = (await custom.getNamespacedCustomObject({ ...GROUP, namespace, name: 'analytics' })) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    return object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  });
  const runs: Visits[] = [];
  for (let change = 1; change <= Number(args.changes); change++) {
    const patchSent = new Promise<void>((resolve) => (patched = resolve));
    traced = undefined;
    armed = true;
    await custom.patchNamespacedCustomObject(
      { ...GROUP, namespace, name: 'analytics', body: { spec: { name: `renamed ${change}` } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await patchSent;
    armed = false;
    runs.push(visitsOf(traced!.files));
  }
  // The reconcile in the middle by returns: how much a run waits on a cache or a list varies a little.
  const median = [...runs].sort((a, b) => a.returns - b.returns)[Math.floor(runs.length / 2)]!;
  const range = (of: (v: Visits) => number) => runs.map(of).join(', ');
  console.log(
    `one DatabaseService spec change, from ${RECONCILER} to the PATCH of its service (${runs.length} changes):`,
  );
  console.log(`  files visited: ${median.files} (each change: ${range((v) => v.files)})`);
  console.log(
    `  returns to a file already left: ${median.returns} (each change: ${range((v) => v.returns)})`,
  );
  console.log(`  files re-entered (times), in the median change:`);
  for (const [file, times] of median.reentries) console.log(`    ${file}: ${times}`);
  const most = median.descents[0]?.[1] ?? 0;
  const overTwo = median.descents.filter(([, visits]) => visits > 2);
  console.log(
    `  on the way down (a call into a file, not a return to it): each file at most ${most} times; ${overTwo.length} files more than twice`,
  );
  for (const [file, visits] of overTwo) console.log(`    ${file}: ${visits}`);
  // `↓`: a call into the file, and the function it entered; otherwise control came back to it.
  const marked = median.sequence.map((file, i) =>
    median.descended[i] ? `↓ ${file}  ${median.entered[i] ?? ''}`.trimEnd() : `  ${file}`,
  );
  if (args.sequence) console.log(`  in order (↓: on the way down):\n    ${marked.join('\n    ')}`);
} finally {
  await operator.stop();
  await emulator.stop();
  await cluster.stop();
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the DatabaseService did not become Ready within a minute');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
