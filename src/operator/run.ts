import { resolveClusterIdentity } from '../cloud-access/cluster-identity.ts';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { createCloudAgent, sendOnlyWhile } from '../cloud/transport.ts';
import { createLogger } from './logger.ts';
import { loadKubeAccess } from '../kube/kube-config.ts';
import { closeKubeConnections } from '../kube/kube-http.ts';
import { startMetricsServer, type RunningServer } from '../kube/health-and-metrics-servers.ts';
import { EventRecorder, HttpKubeWriter, type ManagedObject } from '../managed/index.ts';
import { Manager } from '../runtime/manager.ts';
import { OperatorMetrics } from '../runtime/metrics.ts';
import { DriftPlanner } from '../runtime/drift-planner.ts';
import { readinessOf } from '../runtime/object-readiness.ts';
import { withDefaultMargin, type QuotaLimit } from '../cloud/quota.ts';
import { CloudClients } from '../cloud-access/cloud-clients.ts';
import { CREDENTIAL_KEYS } from '../cloud-access/credentials.ts';
import type { OperatorConfig } from './config.ts';
import { setTimeScale } from '../base/timings.ts';
import { GRANT_SCHEMAS, statesCredentials } from '../kinds/index.ts';
import { loadKinds } from '../kinds/load.ts';
import { apiKeyRoleRefusal } from '../kinds/api-key/roles.ts';
import { GROUP, VERSION } from '../kinds/shared/common.ts';
import type { CloudApi, CloudConnection } from '../cloud-access/connection.ts';
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
  const kubeConfig = await loadKubeAccess(config.kubeconfig);
  const cluster = await resolveClusterIdentity(kubeConfig, config.clusterName, config.takeOverFrom);
  const kinds = await loadKinds();
  log.info(
    { cluster: cluster.name, explicit: cluster.explicit, takeOverFrom: cluster.takeOverFrom },
    'cluster name recorded as owner in the cloud',
  );

  const metrics = new OperatorMetrics({ processMetrics: true });
  const kube = new HttpKubeWriter(kubeConfig);
  const events = new EventRecorder(kube, log, undefined, (kind, type, reason) =>
    metrics.eventRecorded(kind, type, reason),
  );
  // Once the Lease can no longer be counted on, no cloud call leaves, whatever the main loop is busy with.
  const dispatcher = createCloudAgent().compose(
    sendOnlyWhile(() => vitals.mayAct(), 'this process no longer holds the leader Lease'),
  );
  // Aborts every cloud call in flight: at once when leadership is lost, after the grace period on stop().
  const work = new AbortController();
  // Every cloud call in flight listens on it (concurrency × kinds of them): not a leak, so no warning.
  setMaxListeners(0, work.signal);
  const manager: Manager<CloudConnection> = new Manager<CloudConnection>({
    kubeConfig,
    kinds,
    cluster,
    ...(config.namespace ? { namespaces: config.namespace.split(',') } : {}),
    ...(config.credentialsSecret ? { extraSecrets: [config.credentialsSecret] } : {}),
    concurrency: config.concurrency,
    // Of a credentials Secret, only what the cloud clients read is kept.
    credentialKeys: Object.values(CREDENTIAL_KEYS).flat(),
    // A plain id reaches another namespace's cloud object only by that namespace's grant.
    idAccess: {
      grantResource: { group: GROUP, version: VERSION, plural: GRANT_SCHEMAS[0]!.plural },
      plainIdNamespaces: config.plainIdNamespaces ?? [],
    },
    metrics,
    logger: log,
    writer: kube,
    events,
    cloudFor: (resource, { priority, freshnessMs, writes }) =>
      clouds.connectionFor(resource, priority, freshnessMs, writes),
    secretDigestKey: (resource) => clouds.secretDigestKey(resource),
    isCredentials: (resource) => clouds.holdsCredentials(resource),
    organizationOf: (resource) => clouds.organizationOf(resource),
    ...(config.apiKeyRoles ? { policyRefusal: apiKeyRoleRefusal(config.apiKeyRoles) } : {}),
    syncIntervalMs: config.syncInterval,
    // A namespace sharing a key with others is drift-checked no more often than its share allows.
    driftFloorMs: (resource) => planner.floorOf(resource),
    pollIntervalMs: config.pollInterval,
    signal: work.signal,
    onCredentialsReleased: (secret) => {
      const key = `${secret.namespace}/${secret.name}`;
      clouds.release(secret);
      metrics.cloud.forget(key);
      planner.forget(key);
    },
  });
  // Until when (performance.now() time) a predecessor may have spent this process's keys: see startControllers.
  let othersCalledUntil: number | undefined;
  const clouds = new CloudClients({
    secrets: manager.secrets,
    secretExists: (namespace, name) => manager.secrets.object(namespace, name) !== undefined,
    statesCredentials: statesCredentials(kinds),
    ...(config.credentialsSecret ? { defaultSecret: config.credentialsSecret } : {}),
    ...(config.operatorCredentialsNamespaces
      ? { defaultSecretNamespaces: config.operatorCredentialsNamespaces }
      : {}),
    ...(config.allowedApiHosts ? { allowedApiHosts: config.allowedApiHosts } : {}),
    dispatcher,
    quotas: { management: config.managementQuota, alerting: config.alertingQuota },
    quotaStart: () => (othersCalledUntil === undefined ? {} : { othersCalledUntil }),
    maxWaitMs: config.maxCloudWait,
    signal: work.signal,
    onCloudChange: (ids) => manager.onCloudChange(ids),
    logger: log,
    hooks: {
      onRequest: (e) => {
        metrics.cloud.request(e.api, e.method, e.route, e.code, e.durationMs / 1000);
        if (e.credentials) metrics.cloud.spent(e.credentials, e.api, e.priority, e.code);
      },
      onQuotaWait: (e) => {
        metrics.cloud.quotaWaited(e.api, e.waitMs / 1000);
        if (e.credentials) metrics.cloud.quotaRemaining(e.credentials, e.api, e.remaining);
      },
    },
  });

  const credentialsOf = (resource: ManagedObject) => clouds.credentialsOf(resource);
  metrics.observeSnapshots(() => clouds.snapshotAges());
  metrics.observeObjects(() => readinessOf(manager.objects(), credentialsOf));
  metrics.observeSecrets(() => manager.secrets.stats());
  const budget = (quota: QuotaLimit | false) => (quota === false ? false : withDefaultMargin(quota));
  const planner = new DriftPlanner<CloudApi>({
    objects: () => manager.objects(),
    credentialsOf,
    budgetKeyOf: (ref, api) => clouds.budgetKeyOf(ref, api),
    secretUid: (ref) => manager.secrets.identity(ref.namespace, ref.name)?.uid,
    budgets: { management: budget(config.managementQuota), alerting: budget(config.alertingQuota) },
    syncIntervalMs: config.syncInterval,
    events,
    metrics: metrics.drift,
    logger: log.child({ component: 'drift-planner' }),
  });

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
