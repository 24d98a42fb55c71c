import { isDeepStrictEqual } from 'node:util';
import { pino } from 'pino';
import { managementSpentNow } from '../cloud/quota.ts';
import { RequestTally } from '../cloud/request-tally.ts';
import { createCloudAgent } from '../cloud/transport.ts';
import type { KindDescriptor } from '../kinds/shared/descriptor.ts';
import { KINDS, kindNamed, statesCredentials } from '../kinds/index.ts';
import { resolveClusterIdentity } from '../cloud-access/cluster-identity.ts';
import { CloudClients, type SecretRef } from '../cloud-access/cloud-clients.ts';
import { CREDENTIAL_KEYS, credentialsFromFlags } from '../cloud-access/credentials.ts';
import { loadKubeAccess } from '../kube/kube-config.ts';
import { closeKubeConnections } from '../kube/kube-http.ts';
import { operatorSettingsFor, type SettingName } from '../command-line/running-settings.ts';
import {
  NAMESPACE_CREDENTIALS,
  messageOf,
  type SecretReader,
  type SecretSnapshot,
  type ManagedObject,
} from '../managed/index.ts';
import { ClusterReader, isForbidden } from './cluster.ts';
import type { PlanConfig } from './config.ts';
import { checkAdmission, type Submission } from './admission.ts';
import { desiredObject, worldKey } from './desired.ts';
import { readInput, type InputSecret } from './input.ts';
import { planObjects, refusedResource } from './planner.ts';
import { exitCodeOf, renderJson, renderText } from './render.ts';
import { plannedRemovals } from './removals.ts';

/**
 * How old a list of the cloud an object may be planned from: any list this run made. One list of the
 * services serves every DatabaseService, as the operator's snapshots do.
 */
const PLAN_FRESHNESS_MS = 3_600_000;

/** The in-memory Secret that credentials given as flags live in, as the operator's Secret would. */
const FLAG_CREDENTIALS: SecretRef = { namespace: '', name: 'credentials from flags' };

/** The operator's settings that change a plan: taken from the running operator unless given as flags. */
const PLAN_SETTINGS: readonly SettingName[] = [
  'credentialsSecret',
  'clusterName',
  'takeOverFrom',
  'operatorCredentialsNamespaces',
  'allowedApiHosts',
];

export interface PlanIo {
  stdout(text: string): void;
  /** Progress and errors, one line each. */
  stderr(line: string): void;
}

const processIo: PlanIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (line) => process.stderr.write(`${line}\n`),
};

/** Runs `sluice plan`: the plan on stdout, progress on stderr; resolves to the exit status. */
export async function runPlan(
  flags: PlanConfig,
  io: PlanIo = processIo,
  stdin?: () => Promise<string>,
): Promise<number> {
  const dispatcher = createCloudAgent();
  const tally = new RequestTally();
  let clouds: CloudClients | undefined;
  try {
    const access = await loadKubeAccess(flags.kubeconfig);
    const config = { ...flags, ...(await operatorSettingsFor(access, flags, PLAN_SETTINGS, io.stderr)) };
    const cluster = new ClusterReader(access);
    const identity = await resolveClusterIdentity(access, config.clusterName, config.takeOverFrom);
    const input = config.file
      ? await readInput(config.file, config.namespace ?? 'default', stdin)
      : undefined;
    if (input) {
      const { objects, secrets, ignored } = input;
      io.stderr(
        `read ${objects.length} sluice objects and ${secrets.length} Secrets from ${config.file}` +
          (ignored > 0 ? ` (${ignored} documents of other kinds left out)` : ''),
      );
    }

    const namespaces = input && [...new Set(input.objects.map((o) => o.metadata.namespace))];
    const inCluster = new Map<string, ManagedObject>();
    for (const kind of KINDS as readonly KindDescriptor<ManagedObject>[]) {
      for (const object of await listKind(cluster, kind, namespaces)) {
        inCluster.set(worldKey(kind.kind, object), object);
      }
    }
    io.stderr(`read ${inCluster.size} sluice objects from the cluster`);

    const world = new Map(inCluster);
    const inputOnly = new Set<string>();
    const submissions: Submission[] = [];
    const targets = input
      ? input.objects.map((object) => {
          const key = worldKey(object.kind ?? '', object);
          const desired = desiredObject(object, inCluster.get(key));
          world.set(key, desired);
          if (!inCluster.has(key)) inputOnly.add(key);
          submissions.push({ ...input.origins.get(object)!, object: desired, exists: inCluster.has(key) });
          return desired;
        })
      : [...inCluster.values()].filter(
          (object) => !config.namespace || object.metadata.namespace === config.namespace,
        );
    // What the apiserver would refuse (a CEL rule, a field fixed at creation) is never applied: the object is
    // an error of the plan, and the others, which see it as the cluster has it, are planned.
    const refused = await checkAdmission(access, submissions, io.stderr);
    for (const object of refused.keys()) {
      const key = worldKey(object.kind ?? '', object);
      const stored = inCluster.get(key);
      if (stored) world.set(key, stored);
      else world.delete(key);
      inputOnly.delete(key);
    }
    const admitted = targets.filter((target) => !refused.has(target));

    const { secrets, credentials } = await readSecrets(
      cluster,
      admitted,
      world,
      config,
      input?.secrets ?? [],
      io.stderr,
    );
    clouds = new CloudClients({
      secrets: credentials,
      ...(config.credentialsSecret || config.organization
        ? { defaultSecret: config.credentialsSecret ?? FLAG_CREDENTIALS }
        : {}),
      ...(config.operatorCredentialsNamespaces
        ? { defaultSecretNamespaces: config.operatorCredentialsNamespaces }
        : {}),
      ...(config.allowedApiHosts ? { allowedApiHosts: config.allowedApiHosts } : {}),
      statesCredentials: statesCredentials(KINDS),
      noCredentialsAdvice:
        'give plan --credentials-secret, or the key as flags (--organization, --key-id, --key-secret, --management-url) or SLUICE_* variables',
      dispatcher,
      hooks: tally.hooks,
      logger: pino({ enabled: false }),
      quotas: { management: config.managementQuota, alerting: config.alertingQuota },
      // The operator's Secret holds the operator's key: its budget starts as spent.
      ...(config.credentialsSecret ? { quotaStart: managementSpentNow } : {}),
    });
    const usedClouds = clouds;
    const plannedAdmitted = await planObjects({
      targets: admitted,
      world,
      inputOnly,
      secrets,
      secretDigestKey: (resource) => usedClouds.secretDigestKey(resource),
      cluster: identity,
      cloudFor: (resource, priority, writes) =>
        usedClouds.connectionFor(resource, { priority, freshnessMs: PLAN_FRESHNESS_MS, writes }),
      progress: io.stderr,
    });
    const planned = targets.map((target) => {
      const refusal = refused.get(target);
      return refusal === undefined ? plannedAdmitted.shift()! : refusedResource(target, refusal);
    });
    if (config.prune && input) {
      // Only the input's namespaces: a directory holds one namespace's manifests, or several, never all.
      const kept = new Set(input.objects.map((object) => worldKey(object.kind ?? '', object)));
      const left = [...inCluster].filter(
        ([key, object]) => !kept.has(key) && namespaces!.includes(object.metadata.namespace),
      );
      planned.push(...plannedRemovals(left.map(([, object]) => object)));
    }
    io.stdout(config.output === 'json' ? renderJson(planned) : renderText(planned));
    io.stderr(`planned ${planned.length} objects with ${tally.describe()}`);
    return exitCodeOf(planned);
  } catch (error) {
    // Client errors are redacted: no key or token reaches this message.
    io.stderr(`sluice plan: ${messageOf(error)}`);
    return 1;
  } finally {
    await clouds?.close();
    await dispatcher.close();
    closeKubeConnections();
  }
}

/** A kind's objects, across namespaces, else (not allowed to list across) in the input's namespaces. */
async function listKind(
  cluster: ClusterReader,
  kind: KindDescriptor<ManagedObject>,
  namespaces: readonly string[] | undefined,
): Promise<ManagedObject[]> {
  try {
    return await cluster.list(kind);
  } catch (error) {
    if (!namespaces || !isForbidden(error)) throw error;
    return cluster.list(kind, namespaces);
  }
}

/**
 * The Secrets the targets' reconciles read, as the operator's Secret cache would hold them: credentials,
 * referenced Secrets and connection Secrets, from the cluster, or from the input when it has them.
 * `credentials` also holds, for the cloud clients alone, each credentials Secret a sluice object of the
 * `world` will write (an ApiKey) that is not there yet: its writer plans it as a Secret still to write.
 */
async function readSecrets(
  cluster: ClusterReader,
  targets: readonly ManagedObject[],
  world: ReadonlyMap<string, ManagedObject>,
  config: PlanConfig,
  inputSecrets: readonly InputSecret[],
  note: (line: string) => void,
): Promise<{ secrets: SecretReader; credentials: SecretReader }> {
  const wanted = new Map<string, SecretRef>();
  const want = (namespace: string, name: string) =>
    wanted.set(refKey({ namespace, name }), { namespace, name });
  if (config.credentialsSecret) want(config.credentialsSecret.namespace, config.credentialsSecret.name);
  // A kind that states its credentials uses the operator's without spec.credentialsRef, never the default.
  const stated = statesCredentials(KINDS);
  const credentialsOf = (object: ManagedObject) =>
    object.spec.credentialsRef?.name ?? (stated(object) ? undefined : NAMESPACE_CREDENTIALS);
  const writers = secretWriters(world);
  const credentials = new Set<string>();
  for (const target of targets) {
    const kind = kindNamed(target.kind ?? '');
    const { namespace } = target.metadata;
    const named = credentialsOf(target);
    if (named) {
      want(namespace, named);
      credentials.add(refKey({ namespace, name: named }));
    }
    // The writer's own credentials: what the Secret it writes is planned with, if it is not there yet.
    const writer = named && writers.get(refKey({ namespace, name: named }));
    const writersOwn = writer && credentialsOf(writer);
    if (writersOwn) want(namespace, writersOwn);
    for (const use of kind?.secretReferences?.(target) ?? []) want(namespace, use.secretName);
    if (kind?.connectionSecret) want(namespace, kind.connectionSecret.name(target));
  }
  const found = new Map<string, SecretSnapshot>();
  await Promise.all(
    [...wanted].map(async ([key, { namespace, name }]) => {
      const secret = await cluster.secret(namespace, name);
      if (secret) found.set(key, secret);
    }),
  );
  if (config.credentialsSecret && !found.has(refKey(config.credentialsSecret))) {
    const { namespace, name } = config.credentialsSecret;
    throw new Error(`Secret ${namespace}/${name} (--credentials-secret) not found`);
  }
  for (const secret of inputSecrets) {
    const key = refKey(secret);
    const existing = found.get(key);
    // Applying the same values changes nothing; new values make a new version of the Secret.
    const same = existing && isDeepStrictEqual(existing.data, secret.data);
    found.set(key, {
      ...existing,
      data: secret.data,
      resourceVersion: same ? existing.resourceVersion : `${existing?.resourceVersion ?? ''}+input`,
    });
  }
  if (!config.credentialsSecret && config.organization) {
    found.set(refKey(FLAG_CREDENTIALS), {
      data: credentialsFromFlags(config) as Record<string, string>,
      resourceVersion: '',
    });
  }
  // A key the writer makes is of the organization the writer is made in, at its management URL: until it
  // is made, its users are planned with the writer's own credentials, as an id not yet known is planned.
  const operators = config.credentialsSecret ?? (config.organization ? FLAG_CREDENTIALS : undefined);
  const toBeWritten = new Map<string, SecretSnapshot>();
  for (const [key, writer] of writers) {
    if (found.has(key) || !credentials.has(key)) continue;
    const { namespace } = writer.metadata;
    const writersOwn = credentialsOf(writer);
    const writerCredentials =
      (writersOwn && found.get(refKey({ namespace, name: writersOwn }))) ||
      (writer.spec.credentialsRef ? undefined : operators && found.get(refKey(operators)));
    if (!writerCredentials) continue;
    const data = Object.fromEntries(
      CREDENTIAL_KEYS.management.flatMap((name) =>
        writerCredentials.data[name] === undefined ? [] : [[name, writerCredentials.data[name]]],
      ),
    );
    toBeWritten.set(key, { data, resourceVersion: '' });
    const what = `${writer.kind ?? ''} ${writer.metadata.name}`;
    note(
      `Secret ${key}: not written yet; ${what} writes it, planned with the credentials ${what} is made with`,
    );
  }
  const key = (namespace: string, name: string) => refKey({ namespace, name });
  return {
    secrets: { get: (namespace, name) => found.get(key(namespace, name)) },
    credentials: {
      get: (namespace, name) => found.get(key(namespace, name)) ?? toBeWritten.get(key(namespace, name)),
    },
  };
}

/** The sluice objects that write a Secret of their namespace (their connection Secret), by `namespace/name`. */
function secretWriters(world: ReadonlyMap<string, ManagedObject>): Map<string, ManagedObject> {
  const writers = new Map<string, ManagedObject>();
  for (const object of world.values()) {
    const writes = kindNamed(object.kind ?? '')?.connectionSecret?.name(object);
    if (writes) writers.set(refKey({ namespace: object.metadata.namespace, name: writes }), object);
  }
  return writers;
}

const refKey = ({ namespace, name }: SecretRef) => `${namespace}/${name}`;
