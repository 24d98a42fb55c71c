// The operator's vital signs, in a thread of their own: the health probe server and the leader Lease. What must
// answer on time does not wait behind a burst of reconciles on the main thread, and what decides whether this
// process may still act as leader does not depend on the reconcile path getting the loop (see vital-signs.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { setTimeScale } from '../base/timings.ts';
import { startHealthProbeServer } from '../kube/health-and-metrics-servers.ts';
import { loadKubeAccess } from '../kube/kube-config.ts';
import { LeaderElector } from '../kube/leader-election.ts';
import { createLogger } from './logger.ts';
import { livenessChecks, readinessChecks } from './vital-signs-checks.ts';
import { monotonicMs, VitalState } from './vital-state.ts';
import type { FromVitalSigns, ToVitalSigns, VitalSignsSettings } from './vital-signs.ts';

const settings = workerData as VitalSignsSettings;
const port = parentPort!;
const post = (message: FromVitalSigns) => port.postMessage(message);

setTimeScale(settings.timeScale);
const state = new VitalState(settings.buffer);
// Lines go to the main thread's logger, so an operator's log is one stream whoever wrote the line.
const logger = createLogger(
  { level: settings.logLevel },
  { write: (line: string) => post({ type: 'log', line }) },
).child({ thread: 'vital-signs' });

const bounds = {
  stallTimeoutMs: settings.stallTimeoutMs,
  leaderElect: settings.leaderElection !== undefined,
};
const server = await startHealthProbeServer({
  bindAddress: settings.healthProbeBindAddress,
  healthz: livenessChecks(state, bounds, monotonicMs),
  readyz: readinessChecks(state, bounds, monotonicMs),
});

let elector: LeaderElector | undefined;
let stopping = false;
if (settings.leaderElection) {
  const { kubeconfig, namespace, name } = settings.leaderElection;
  elector = new LeaderElector({
    kubeConfig: await loadKubeAccess(kubeconfig),
    namespace,
    name,
    logger: logger.child({ component: 'leader-election' }),
    onAttempt: (outcome, startedAt) => {
      const now = monotonicMs();
      state.write('electorTriedAt', now);
      // Nobody else can take the Lease before this attempt's start + the lease duration; the leader stops
      // acting at its start + the renew deadline, which is shorter.
      if (outcome === 'ours' && !stopping) {
        state.write('leadingUntil', now - (performance.now() - startedAt) + elector!.renewDeadlineMs);
      }
    },
    onStartedLeading: (_leading, predecessor) => post({ type: 'started-leading', ...predecessor }),
    onStoppedLeading: () => {
      state.write('leadingUntil', 0);
      post({ type: 'stopped-leading' });
    },
  });
  state.write('electorTriedAt', monotonicMs());
  void elector.run();
}

port.on('message', (message: ToVitalSigns) => {
  if (message.type === 'release') {
    // No more acting as leader from here on, then the Lease goes back.
    stopping = true;
    state.write('leadingUntil', 0);
    void (elector?.stop() ?? Promise.resolve()).then(() => post({ type: 'released' }));
  } else if (message.type === 'close') {
    void (server?.close() ?? Promise.resolve()).then(() => post({ type: 'closed' }));
  }
});
post({ type: 'listening', ...(server ? { port: server.port, url: server.url } : {}) });
