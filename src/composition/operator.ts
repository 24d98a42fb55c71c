import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { resolveClusterIdentity } from '../cloud-access/cluster-identity.ts';
import { CloudClients } from '../cloud-access/cloud-clients.ts';
import type { CloudApi, CloudConnection } from '../cloud-access/connection.ts';
import { CREDENTIAL_KEYS } from '../cloud-access/credentials.ts';
import { withDefaultMargin, type QuotaLimit, type QuotaStart } from '../cloud/quota.ts';
import type { OperatorFlagFields } from '../command-line/run-flags.ts';
import { apiKeyRoleRefusal } from '../kinds/api-key/roles.ts';
import { GRANT_SCHEMAS, statesCredentials } from '../kinds/index.ts';
import { loadKinds } from '../kinds/load.ts';
import { GROUP, VERSION } from '../kinds/shared/common.ts';
import { loadKubeAccess, type KubeAccess } from '../kube/kube-config.ts';
import { EventRecorder, HttpKubeWriter, type ClusterIdentity } from '../managed/index.ts';
import { DriftPlanner } from '../runtime/drift-planner.ts';
import { Manager } from '../runtime/manager.ts';
import type { OperatorMetrics } from '../runtime/metrics.ts';
import { Watches } from '../runtime/watches.ts';
import { liveReconcilers } from './reconcilers.ts';

type RunFlags = z.output<typeof OperatorFlagFields>;

/** `sluice run`'s configuration as the composition reads it: its flags, durations and quotas resolved. */
export interface OperatorSettings extends Omit<
  RunFlags,
  'syncInterval' | 'pollInterval' | 'managementQuota' | 'alertingQuota'
> {
  syncInterval: number;
  pollInterval: number;
  managementQuota: QuotaLimit | false;
  alertingQuota: QuotaLimit | false;
}

/** What the process running the operator owns and lends it: their lifetime is the process's. */
export interface OperatorProcess {
  logger: Logger;
  metrics: OperatorMetrics;
  /** Sends every cloud request (the process gates it on holding the leader Lease). */
  dispatcher: Dispatcher;
  /** Aborted when this process must stop acting: every cloud call in flight listens on it. */
  signal: AbortSignal;
  /** How a key's budget starts when first used (what a predecessor may have spent of it). */
  quotaStart: (quotaKey: string) => QuotaStart;
}

/** The operator's parts, each built once, in the order they need each other. */
export interface ComposedOperator {
  kubeConfig: KubeAccess;
  cluster: ClusterIdentity;
  events: EventRecorder;
  watches: Watches<CloudConnection>;
  clouds: CloudClients;
  planner: DriftPlanner<CloudApi>;
  manager: Manager<CloudConnection>;
}

/**
 * The composition root of `sluice run`: kube access, the caches (objects, Secrets, grants), the cloud clients
 * on the Secret cache, the drift planner on both, and the manager whose reconcilers (built here, with
 * `liveReconcilers`) use all three. Nothing built here calls back into what is built after it: cloud changes
 * reach the manager as events it subscribes to.
 */
export async function composeOperator(
  settings: OperatorSettings,
  process: OperatorProcess,
): Promise<ComposedOperator> {
  const { logger, metrics, signal } = process;
  const kubeConfig = await loadKubeAccess(settings.kubeconfig);
  const cluster = await resolveClusterIdentity(kubeConfig, settings.clusterName, settings.takeOverFrom);
  const kinds = await loadKinds();
  const writer = new HttpKubeWriter(kubeConfig);
  const events = new EventRecorder(writer, logger, undefined, (kind, type, reason) =>
    metrics.eventRecorded(kind, type, reason),
  );
  const grantResource = { group: GROUP, version: VERSION, plural: GRANT_SCHEMAS[0]!.plural };
  const watches = new Watches<CloudConnection>({
    kubeConfig,
    kinds,
    ...(settings.namespace ? { namespaces: settings.namespace.split(',') } : {}),
    ...(settings.credentialsSecret ? { extraSecrets: [settings.credentialsSecret] } : {}),
    grantResource,
    logger,
  });
  const { secrets } = watches;

  const clouds = new CloudClients({
    secrets,
    secretExists: watches.secretExists.bind(watches),
    statesCredentials: statesCredentials(kinds),
    ...(settings.credentialsSecret ? { defaultSecret: settings.credentialsSecret } : {}),
    ...(settings.operatorCredentialsNamespaces
      ? { defaultSecretNamespaces: settings.operatorCredentialsNamespaces }
      : {}),
    ...(settings.allowedApiHosts ? { allowedApiHosts: settings.allowedApiHosts } : {}),
    dispatcher: process.dispatcher,
    quotas: { management: settings.managementQuota, alerting: settings.alertingQuota },
    quotaStart: process.quotaStart,
    maxWaitMs: settings.maxCloudWait,
    signal,
    logger,
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

  const budget = (quota: QuotaLimit | false) => (quota === false ? false : withDefaultMargin(quota));
  const planner = new DriftPlanner<CloudApi>({
    objects: () => watches.all(),
    credentialsOf: (resource) => clouds.credentialsOf(resource),
    budgetKeyOf: (ref, api) => clouds.budgetKeyOf(ref, api),
    secretUid: (ref) => secrets.identity(ref.namespace, ref.name)?.uid,
    budgets: { management: budget(settings.managementQuota), alerting: budget(settings.alertingQuota) },
    syncIntervalMs: settings.syncInterval,
    events,
    metrics: metrics.drift,
    logger: logger.child({ component: 'drift-planner' }),
  });

  const manager = new Manager<CloudConnection>({
    kubeConfig,
    watches,
    reconcilerFor: liveReconcilers<CloudConnection>({
      writer,
      events,
      cluster,
      // Each reconcile reads its credentials once: its checks, digests and calls are of that one read.
      readCredentials: clouds.readCredentials.bind(clouds),
      cloudFor: clouds.connectionFor.bind(clouds),
      secretDigestKey: clouds.secretDigestKey.bind(clouds),
      ...(settings.apiKeyRoles ? { policyRefusal: apiKeyRoleRefusal(settings.apiKeyRoles) } : {}),
      syncIntervalMs: settings.syncInterval,
      // A namespace sharing a key with others is drift-checked no more often than its share allows.
      driftFloorMs: (resource) => planner.floorOf(resource),
      pollIntervalMs: settings.pollInterval,
      signal,
    }),
    cloudChanges: clouds,
    cluster,
    concurrency: settings.concurrency,
    // Of a credentials Secret, only what the cloud clients read is kept.
    credentialKeys: Object.values(CREDENTIAL_KEYS).flat(),
    // A plain id reaches another namespace's cloud object only by that namespace's grant.
    idAccess: { grantResource, plainIdNamespaces: settings.plainIdNamespaces ?? [] },
    isCredentials: (resource, credentials) => clouds.holdsCredentials(resource, credentials),
    metrics,
    logger,
    onCredentialsReleased: (secret) => {
      const key = `${secret.namespace}/${secret.name}`;
      clouds.release(secret);
      metrics.cloud.forget(key);
      planner.forget(key);
    },
  });
  return { kubeConfig, cluster, events, watches, clouds, planner, manager };
}
