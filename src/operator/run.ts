import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { createCloudAgent, sendOnlyWhile } from '../cloud/transport.ts';
import { createLogger } from './logger.ts';
import { closeKubeConnections } from '../kube/kube-http.ts';
import { startMetricsServer, type RunningServer } from '../kube/health-and-metrics-servers.ts';
import type { ManagedObject } from '../managed/index.ts';
import { OperatorMetrics } from '../runtime/metrics.ts';
import { readinessOf } from '../runtime/object-readiness.ts';
import { composeOperator } from '../composition/operator.ts';
import type { OperatorConfig } from './config.ts';
import { setTimeScale } from '../base/timings.ts';
import { shutDownInOrder } from './shutdown.ts';
import { monitorEventLoop } from '../runtime/event-loop-monitor.ts';
import { loopTurned, startSlicing } from '../base/slices.ts';
import { VitalSigns } from './vital-signs.ts';
import { monotonicMs } from './vital-state.ts';

/** How often the main thread reports that its loop turns (and measures how late it turned). */
const EVENT_LOOP_TURN_MS = 20;

export interface RunningOperator {
  metrics?: RunningServer;
  health?: RunningServer;
  /** Resolves when the operator has stopped: after stop(), or when leadership was lost. */
  done: Promise<'stopped' | 'lost-leadership'>;
  stop(): Promise<void>;
}

/**
 * Starts the operator: metrics and probe servers at once, the controllers once this process leads (or at
 * once without --leader-elect). Losing the lease stops everything and resolves `done` with
 * 'lost-leadership'; the CLI then exits, because caches and in-flight work may be stale.
 */
export async function startOperator(config: OperatorConfig, logger?: Logger): Promise<RunningOperator> {
  // Before anything reads `timing`: retries, thresholds and lease durations all follow the scale.
  setTimeScale(config.timeScale);
  const log = logger ?? createLogger({ level: config.logLevel });
  const metrics = new OperatorMetrics({ processMetrics: true });
  // Once the Lease can no longer be counted on, no cloud call leaves, whatever the main loop is busy with.
  const dispatcher = createCloudAgent().compose(
    sendOnlyWhile(() => vitals.mayAct(), 'this process no longer holds the leader Lease'),
  );
  // Aborts every cloud call in flight: at once when leadership is lost, after the grace period on stop().
  const work = new AbortController();
  // Every cloud call in flight listens on it (concurrency × kinds of them): not a leak, so no warning.
  setMaxListeners(0, work.signal);
  // Until when (performance.now() time) a predecessor may have spent this process's keys: see startControllers.
  let othersCalledUntil: number | undefined;
  const { cluster, watches, clouds, planner, manager } = await composeOperator(config, {
    logger: log,
    metrics,
    dispatcher,
    signal: work.signal,
    quotaStart: () => (othersCalledUntil === undefined ? {} : { othersCalledUntil }),
  });
  log.info(
    { cluster: cluster.name, explicit: cluster.explicit, takeOverFrom: cluster.takeOverFrom },
    'cluster name recorded as owner in the cloud',
  );
  const credentialsOf = (resource: ManagedObject) => clouds.credentialsOf(resource);
  metrics.observeSnapshots(() => clouds.snapshotAges());
  metrics.observeObjects(() => readinessOf(watches.all(), credentialsOf));
  metrics.observeSecrets(() => watches.secrets.stats());

  const metricsServer = await startMetricsServer({
    bindAddress: config.metricsBindAddress,
    registry: metrics.registry,
  });
  // Probes and the Lease in a thread of their own: a burst of work here can neither time out a probe nor let
  // the Lease lapse. The leader's controllers start when it says so; losing the Lease stops this process.
  const vitals = await VitalSigns.start({
    healthProbeBindAddress: config.healthProbeBindAddress,
    stallTimeoutMs: config.stallTimeout,
    timeScale: config.timeScale,
    ...(config.leaderElect
      ? {
          leaderElection: {
            kubeconfig: config.kubeconfig,
            namespace: config.leaderElectionNamespace,
            name: config.leaderElectionId,
          },
        }
      : {}),
    logger: log,
    onStartedLeading: (predecessor) => startControllers(predecessor),
    onStoppedLeading: () => {
      log.error('lost the leader lease; stopping');
      void shutdown('lost-leadership');
    },
  });
  // Where to scrape and probe: the bound addresses, which a bind address of port 0 leaves to the system.
  log.info(
    { metrics: metricsServer?.url, healthProbes: vitals.probes?.url },
    'serving metrics and health probes',
  );
  startSlicing();
  const stopMonitoring = monitorEventLoop(EVENT_LOOP_TURN_MS, (delayMs) => {
    loopTurned();
    metrics.eventLoopDelayed(delayMs / 1000);
    const stalled = manager.workStalledSince();
    vitals.turned(stalled === undefined ? 0 : monotonicMs() - (performance.now() - stalled));
  });

  let stopping: Promise<void> | undefined;
  let finish!: (how: 'stopped' | 'lost-leadership') => void;
  const done = new Promise<'stopped' | 'lost-leadership'>((resolve) => (finish = resolve));
  /**
   * A process that may call the cloud now may have had a predecessor (a restart, a rollout, a hand-over) whose
   * requests the server's windows still count: every budget starts as if spent up to this moment, so the first
   * call of a key waits at most one window. A leader knows better from the Lease: nothing when there was no
   * holder before it, else until its predecessor stopped.
   */
  const startControllers = (predecessor?: { activeUntil: number | undefined }) => {
    if (stopping) return;
    metrics.leading(true);
    const { activeUntil } = predecessor ?? { activeUntil: Date.now() };
    othersCalledUntil =
      activeUntil === undefined ? undefined : performance.now() - (Date.now() - activeUntil);
    log.info(
      { controllers: manager.kinds },
      'starting controllers; workers start once every cache has synced',
    );
    // Planned once the caches are whole: a partial cache would under-count a key's objects.
    void manager.start().then(() => {
      if (stopping) return;
      vitals.synced();
      planner.start();
    });
  };
  const shutdown = async (how: 'stopped' | 'lost-leadership') => {
    stopping ??= (async () => {
      vitals.stopping();
      // Someone else may hold the Lease already: no call of ours may reach the cloud any more.
      if (how === 'lost-leadership') work.abort();
      metrics.leading(false);
      planner.stop();
      const ended = await shutDownInOrder({
        drain: () => manager.stop(),
        abort: () => work.abort(),
        release: () => vitals.release(),
        graceMs: config.gracefulShutdownTimeout,
      });
      if (ended === 'aborted')
        log.warn('reconciles were still running at the shutdown deadline; aborted them');
      await clouds.close();
      await dispatcher.close();
      closeKubeConnections();
      stopMonitoring();
      await Promise.all([metricsServer?.close(), vitals.close()]);
      log.info({ how }, 'operator stopped');
      finish(how);
    })();
    return stopping;
  };

  if (!config.leaderElect) startControllers();

  return {
    ...(metricsServer ? { metrics: metricsServer } : {}),
    ...(vitals.probes ? { health: vitals.probes } : {}),
    done,
    stop: () => shutdown('stopped'),
  };
}
