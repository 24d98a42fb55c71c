import type { KubeAccess } from '../kube/kube-config.ts';
import type { Logger } from 'pino';
import { objectKey, splitKey, type KubeObject } from '../kube/cache.ts';
import { Controller, type KindReconciler } from './controller.ts';
import type { SharedInformer } from '../kube/namespaced-informers.ts';
import { MANAGED_BY_LABEL, externalIdOf } from '../managed/annotations.ts';
import { ALREADY_MANAGED } from '../managed/reconciler.ts';
import type { KindObjects } from '../managed/reconciler-options.ts';
import type { CredentialsRead } from '../managed/credentials-read.ts';
import type { ClusterIdentity } from '../managed/cluster-owner.ts';
import {
  dependencyKey,
  DependencyIndex,
  referencedNames,
  splitDependencyKey,
  type ObjectLookup,
} from '../managed/references.ts';
import type { ManagedKind, ManagedObject } from '../managed/types.ts';
import { NAMESPACE_CREDENTIALS, credentialsSecretNameOf } from '../managed/managed-object.ts';
import type { OperatorMetrics } from './metrics.ts';
import { CredentialsUsage } from './credentials-usage.ts';
import type { SecretCache, SecretDataUse } from './secret-cache.ts';
import type { SecretObject } from '../kube/secret-data.ts';
import { apiPath, type ResourceType } from '../kube/api-path.ts';
import type { Watches } from './watches.ts';
import { KubeApiError, kubeRequestJson } from '../kube/kube-http.ts';
import type { CloudIdGrant, GrantSource } from '../managed/id-access.ts';
import { GRANTED_CONDITION } from '../managed/plain-ids.ts';

const SECRET = 'Secret';

/**
 * What the manager knows of one kind, for the composition root to build its reconciler with: the caches' view
 * of its objects (with the hold on an object's own credentials Secret) and the kind's logger.
 */
export interface ReconcilerRequest<Cloud> extends KindObjects<ManagedObject, Cloud, unknown> {
  logger: Logger;
}

/** Cloud ids a snapshot's list showed added, changed or removed: the manager subscribes to them. */
export interface CloudChanges {
  subscribe(listener: (ids: readonly string[]) => void): void;
}

export interface ManagerOptions<Cloud> {
  kubeConfig: KubeAccess;
  /** The kinds and the caches of their objects, Secrets and grants: the manager starts and stops them. */
  watches: Watches<Cloud>;
  /** Builds one kind's reconciler (the composition root's; the manager never builds one itself). */
  reconcilerFor(request: ReconcilerRequest<Cloud>): KindReconciler;
  /** When cloud objects change: exactly the objects managing them look again. */
  cloudChanges?: CloudChanges;
  /** The cluster name recorded as owner: who may reach a plain id is judged for it. */
  cluster?: ClusterIdentity;
  concurrency: number;
  metrics: OperatorMetrics;
  logger: Logger;
  /**
   * Whether the object's own credentials Secret holds credentials (the keys of an API), so it is kept
   * (`sluice.dev/credentials-in-use`) for the object's cloud calls; a Secret that is something else (a TLS
   * Secret named by mistake) is never held. `credentials`: as the reconcile read them. Default: every Secret
   * named.
   */
  isCredentials?(resource: ManagedObject, credentials: CredentialsRead | undefined): boolean;
  /**
   * The keys the cloud clients read of a credentials Secret: the only ones kept of one (with those another
   * use of the same Secret reads). Default: every key.
   */
  credentialKeys?: readonly string[];
  /** No object uses this credentials Secret (`spec.credentialsRef`) any more: what was kept for it can go. */
  onCredentialsReleased?(secret: { namespace: string; name: string }): void;
  /**
   * Plain ids reach another namespace's cloud objects only by its grants (objects of `grantResource`, in
   * `watches`), and console-made ones only in `plainIdNamespaces` with the operator's credentials. Without
   * it, every plain id is taken as given.
   */
  idAccess?: { grantResource: ResourceType; plainIdNamespaces: readonly string[] };
}

/**
 * The operator's runtime (controller-runtime's manager): over the caches it is given (`Watches`: one shared
 * informer per kind and one for Secrets), a controller per kind running the reconciler `reconcilerFor` builds,
 * and the dependency index that turns a change of a referenced object or Secret into a reconcile of exactly
 * the objects that depend on it. Knows no kind.
 */
export class Manager<Cloud> {
  readonly secrets: SecretCache;
  private readonly informers: ReadonlyMap<string, SharedInformer<ManagedObject>>;
  private readonly grantInformer: SharedInformer<CloudIdGrant & KubeObject> | undefined;
  private grantPassScheduled = false;
  private readonly controllers = new Map<string, Controller<ManagedObject>>();
  private readonly dependencies = new DependencyIndex();
  /** What dependants last saw of each referenced object, so only a change that matters reaches them. */
  private readonly referencedStates = new Map<string, string>();
  /** Connection Secret key → owner dependency key, so the owner is found again when its Secret goes. */
  private readonly secretOwners = new Map<string, string>();
  private starting?: Promise<void>;
  private stopped = false;
  private readonly credentials: CredentialsUsage;

  constructor(private readonly options: ManagerOptions<Cloud>) {
    const { kubeConfig, logger, watches } = options;
    const { kinds } = watches;
    const kindsByName = new Map(kinds.map((kind) => [kind.kind, kind]));
    const lookup: ObjectLookup = (kind, ns, name) => this.informers.get(kind)?.cache.get(`${ns}/${name}`);
    this.secrets = watches.secrets;
    this.informers = watches.objects;
    this.grantInformer = watches.grants;
    const { onCredentialsReleased } = options;
    this.credentials = new CredentialsUsage({
      kubeConfig,
      secret: (key) => {
        const { namespace, name } = namespacedName(key);
        return this.secrets.object(namespace, name);
      },
      ...(onCredentialsReleased
        ? { onReleased: (key: string) => onCredentialsReleased(namespacedName(key)) }
        : {}),
      logger: logger.child({ component: 'credentials-usage' }),
    });
    // Before any cloud call with a resource's own credentials (the reconcile's executor asks), their Secret is
    // kept until the resource is gone.
    const holdCredentials =
      (kind: ManagedKind<ManagedObject, Cloud, unknown>) =>
      async (resource: ManagedObject, read: CredentialsRead | undefined) => {
        const credentials = this.credentialsKeyOf(kind, resource, read);
        if (credentials && (options.isCredentials?.(resource, read) ?? true))
          await this.credentials.hold(credentials);
      };

    const { idAccess: access } = options;
    const idAccess: KindObjects<ManagedObject, Cloud, unknown>['idAccess'] = access && {
      cluster: options.cluster ?? { name: 'default', explicit: true },
      plainIdNamespaces: access.plainIdNamespaces,
      grants: this.grantSource(access.grantResource),
      holdersOf: (kind, id) => this.controllers.get(kind)?.recordedHoldersOf(id) ?? [],
    };
    this.grantInformer?.subscribe(() => this.onGrantChange());

    for (const kind of kinds) {
      const informer = this.informers.get(kind.kind)!;
      const kindLogger = logger.child({ controller: kind.kind });
      const reconciler = options.reconcilerFor({
        kind,
        cache: informer.cache,
        lookup,
        ...(idAccess ? { idAccess } : {}),
        namesOf: (kind, namespace) =>
          (this.informers.get(kind)?.cache.keys() ?? [])
            .filter((key) => key.startsWith(`${namespace}/`))
            .map((key) => key.slice(namespace.length + 1)),
        secrets: this.secrets,
        secretWrites: this.secrets,
        secretWriterOf: (namespace, name) => this.secretWriterOf(namespace, name),
        credentialsMadeBy: (namespace, name) => this.credentialsMadeBy(namespace, name),
        dependantsOf: (resource) => this.existingDependantsOf(kind, resource),
        logger: kindLogger,
        holdCredentials: holdCredentials(kind),
      });
      const controller = new Controller<ManagedObject>({
        kind: kind.kind,
        cache: informer.cache,
        reconciler,
        beforeReconcile: (key) => this.loadSecretsOf(kind, key),
        concurrency: options.concurrency,
        metrics: options.metrics,
        logger: kindLogger,
      });
      this.controllers.set(kind.kind, controller);
      informer.subscribe((key) => this.onObjectChange(kind, key));
    }
    watches.secretMetadata.subscribe((key) => this.onSecretChange(key));
    options.cloudChanges?.subscribe((ids) => this.onCloudChange(ids));
    for (const kind of kinds) {
      for (const reference of kind.references ?? []) {
        if (!kindsByName.has(reference.kind)) {
          throw new Error(`${kind.kind} references ${reference.kind}, which is not a registered kind`);
        }
      }
    }
  }

  get kinds(): string[] {
    return [...this.controllers.keys()];
  }

  /**
   * Starts every watch at once and the workers once every cache has synced (controller-runtime's
   * WaitForCacheSync): a reconcile that ran on a partial cache would take a Secret or a dependant not yet
   * listed for gone, and act on that (reset a password, delete past a dependant). Changes seen meanwhile
   * wait in the queues. Resolves when the workers have started, or at once after stop().
   */
  start(): Promise<void> {
    for (const informer of this.allInformers()) informer.start();
    this.starting ??= Promise.all(this.allInformers().map((informer) => informer.waitForSync())).then(
      async () => {
        await this.secrets.loadPinned();
        if (this.stopped) return;
        this.options.logger.info('every cache has synced; starting workers');
        this.credentials.start(this.secrets.keys());
        for (const controller of this.controllers.values()) controller.start();
      },
      // Only stop() ends a reflector before it synced (a failing list is retried forever).
      () => undefined,
    );
    return this.starting;
  }

  /**
   * True once every cache has synced: the same set of caches the workers wait for. Readiness goes by
   * `start()` resolving instead, which also waits for the operator's own Secrets.
   */
  hasSynced(): boolean {
    return this.allInformers().every((informer) => informer.hasSynced());
  }

  /**
   * Since when (the queues' clock, performance.now()) the longest-stalled work queue has held work without
   * moving; undefined when every queue is empty or none has work (see `WorkQueue.stalledSince`).
   */
  workStalledSince(): number | undefined {
    let since: number | undefined;
    for (const controller of this.controllers.values()) {
      const stalled = controller.stalledSince();
      if (stalled !== undefined && (since === undefined || stalled < since)) since = stalled;
    }
    return since;
  }

  /** Stops taking work and waits for every reconcile in flight, then stops the watches. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.controllers.values()].map((controller) => controller.stop()));
    await Promise.all(this.allInformers().map((i) => i.stop()));
    await this.starting;
  }

  /**
   * A snapshot's list showed these cloud objects added, changed or removed: exactly the objects managing
   * them look again (dependants follow through their references when the status changes).
   */
  onCloudChange(ids: readonly string[]): void {
    for (const controller of this.controllers.values()) controller.onCloudChange(ids);
  }

  /** Every sluice object the caches hold, with its kind: what the drift planner and gauges count. */
  objects(): Generator<{ kind: ManagedKind<ManagedObject, Cloud, unknown>; object: ManagedObject }> {
    return this.options.watches.all();
  }

  private allInformers(): SharedInformer<KubeObject>[] {
    return this.options.watches.informers();
  }

  /**
   * Grants as the cache holds them, and as the apiserver has them now: a grant lets a call through only
   * once read again, so a cache that still shows a deleted grant lets nothing through.
   */
  private grantSource(resource: ResourceType): GrantSource {
    const { kubeConfig } = this.options;
    return {
      cached: (namespace) =>
        (this.grantInformer?.cache.list() ?? []).filter((g) => g.metadata.namespace === namespace),
      read: async (namespace, name) => {
        try {
          const path = apiPath(resource, namespace, name);
          return await kubeRequestJson<CloudIdGrant>(kubeConfig, { path });
        } catch (error) {
          if (error instanceof KubeApiError) return undefined;
          throw error;
        }
      },
    };
  }

  /**
   * A grant came, changed or went: the objects it may concern look again at once, not at their next drift
   * check: those that name a plain id, and those waiting before their cloud object exists (a restore's
   * source is a reference whose id may lead out of the namespace).
   */
  private onGrantChange(): void {
    // One pass for a burst of grant events (the initial list delivers each grant on its own).
    if (this.grantPassScheduled) return;
    this.grantPassScheduled = true;
    setImmediate(() => {
      this.grantPassScheduled = false;
      this.enqueueGrantConcerned();
    });
  }

  private enqueueGrantConcerned(): void {
    for (const kind of this.options.watches.kinds) {
      for (const object of this.informers.get(kind.kind)!.cache.list()) {
        const waiting =
          !object.status?.id &&
          object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False');
        const plain = externalIdOf(object) !== undefined || (kind.plainIds?.(object, {}).length ?? 0) > 0;
        const reported = object.status?.conditions?.some((c) => c.type === GRANTED_CONDITION);
        if (waiting || plain || reported) this.enqueue(kind.kind, objectKey(object));
      }
    }
  }

  private onObjectChange(kind: ManagedKind<ManagedObject, Cloud, unknown>, key: string): void {
    const object = this.informers.get(kind.kind)!.cache.get(key);
    const self = dependencyKey(kind.kind, key);
    const before = this.dependencies.set(self, object ? dependenciesOf(kind, object) : []);
    this.credentials.set(self, object && this.credentialsKeyOf(kind, object));
    this.secrets.use(self, object ? secretsUsedBy(kind, object, this.options.credentialKeys) : []);
    this.controllers.get(kind.kind)!.onResourceChange(key);
    if (!object && kind.exclusiveOn) {
      // The owner of a one-per-service cloud object is gone: a waiting claimant may take over.
      for (const peer of this.informers.get(kind.kind)!.cache.keys()) this.enqueue(kind.kind, peer);
    } else if (!object) {
      // The holder of a cloud id may be gone: an object refused it may adopt it now.
      for (const peer of this.informers.get(kind.kind)!.cache.list()) {
        const ready = peer.status?.conditions?.find((c) => c.type === 'Ready');
        if (ready?.reason === ALREADY_MANAGED) this.enqueue(kind.kind, objectKey(peer));
      }
    }
    // A referenced object that is being deleted waits for its dependants: tell it when one changes or goes.
    for (const dependency of before) this.enqueueIfDeleting(dependency);
    this.notifyDependants(self, object && referencedState(object));
  }

  /**
   * A Secret's metadata changed: the data of one sluice uses is read again first, so what its dependants
   * then reconcile with is at least that version.
   */
  private onSecretChange(key: string): void {
    const { namespace: secretNamespace, name: secretName } = namespacedName(key);
    // A namespace's default credentials came or went: its objects without their own now use another Secret.
    if (secretName === NAMESPACE_CREDENTIALS) this.followDefaultCredentials(secretNamespace);
    this.credentials.onSecretChange(key);
    const changed = () => {
      const { namespace, name } = namespacedName(key);
      const secret = this.secrets.object(namespace, name);
      this.notifyDependants(dependencyKey(SECRET, key), secret?.metadata.resourceVersion);
      this.onConnectionSecretChange(key, secret, this.secrets.get(namespace, name)?.data);
    };
    if (!this.secrets.isUsed(key)) return void this.secrets.refresh(key).then(changed);
    this.secrets.refresh(key).then(changed, (error: unknown) => {
      this.options.logger.warn({ err: error, secret: key }, 'could not read a Secret sluice uses');
      changed();
    });
  }

  /** Which credentials Secret (`namespace/name`) each object of `namespace` uses, looked at again. */
  private followDefaultCredentials(namespace: string): void {
    for (const kind of this.options.watches.kinds) {
      if (kind.makesCredentials) continue;
      for (const object of this.informers.get(kind.kind)!.cache.list()) {
        if (object.metadata.namespace !== namespace || object.spec.credentialsRef) continue;
        this.credentials.set(
          dependencyKey(kind.kind, objectKey(object)),
          this.credentialsKeyOf(kind, object),
        );
      }
    }
  }

  /**
   * The `namespace/name` of the credentials Secret the object uses (its own, or its namespace's default while
   * that exists, for a kind that may use it), or undefined for the operator's. `read`: the credentials a
   * reconcile read, which name the Secret it signs in with: no second look at which it is.
   */
  private credentialsKeyOf(
    kind: ManagedKind<ManagedObject, Cloud, unknown>,
    object: ManagedObject,
    read?: CredentialsRead,
  ): string | undefined {
    const { watches } = this.options;
    const exists = (ns: string, n: string) => watches.secretExists(ns, n);
    const name = read
      ? read.objectSecret
      : credentialsSecretNameOf(object, exists, Boolean(kind.makesCredentials));
    return name ? objectKey({ metadata: { namespace: object.metadata.namespace, name } }) : undefined;
  }

  /**
   * The object of a kind that makes credentials whose key the Secret `namespace/name` holds: the one of the
   * namespace that writes that Secret (`ApiKey maker`), or any whose Secret holds the same key (one of another
   * namespace is not named: a message must not tell one tenant another's objects).
   */
  private credentialsMadeBy(namespace: string, name: string): string | undefined {
    const held = this.secrets.get(namespace, name)?.data;
    for (const kind of this.options.watches.kinds) {
      const { makesCredentials, connectionSecret } = kind;
      if (!makesCredentials || !connectionSecret) continue;
      const keysOf = (data: Readonly<Record<string, string>> | undefined) =>
        makesCredentials.identityKeys.map((key) => data?.[key]).filter((value) => value !== undefined);
      const heldKeys = new Set(keysOf(held));
      for (const object of this.informers.get(kind.kind)!.cache.list()) {
        const { namespace: where, name: objectName } = object.metadata;
        const written = connectionSecret.name(object);
        const sameSecret = where === namespace && written === name;
        const sameKey = keysOf(this.secrets.get(where, written)?.data).some((key) => heldKeys.has(key));
        if (!sameSecret && !sameKey) continue;
        return where === namespace ? `${kind.kind} ${objectName}` : `a ${kind.kind} of another namespace`;
      }
    }
    return undefined;
  }

  /** Before a reconcile: the data of every Secret the object uses, as new as the watch shows. */
  private async loadSecretsOf(kind: ManagedKind<ManagedObject, Cloud, unknown>, key: string): Promise<void> {
    const object = this.informers.get(kind.kind)!.cache.get(key);
    if (object) await this.secrets.load(secretsUsedBy(kind, object).map((use) => use.secret));
  }

  /**
   * Enqueues the owner of a connection Secret that was deleted or lost a required key, so the values are
   * restored promptly. The reconciler's own writes leave the Secret complete and so trigger nothing.
   */
  private onConnectionSecretChange(
    secretKey: string,
    secret: SecretObject | undefined,
    data: Readonly<Record<string, string>> | undefined,
  ): void {
    const isConnectionSecret = Object.entries(MANAGED_BY_LABEL).every(
      ([label, value]) => secret?.metadata.labels?.[label] === value,
    );
    for (const kind of this.options.watches.kinds) {
      if (!kind.connectionSecret) continue;
      const owner = secret?.metadata.ownerReferences?.find((ref) => ref.kind === kind.kind);
      if (secret && owner && isConnectionSecret) {
        const ownerKey = objectKey({ metadata: { name: owner.name, namespace: secret.metadata.namespace } });
        this.secretOwners.set(secretKey, dependencyKey(kind.kind, ownerKey));
        // Data not held (its owner not in the cache yet): the owner's own reconcile looks at the Secret.
        if (data && kind.connectionSecret.requiredKeys.some((k) => !data[k]))
          this.enqueue(kind.kind, ownerKey);
        return;
      }
    }
    const formerOwner = this.secretOwners.get(secretKey);
    if (formerOwner) {
      this.secretOwners.delete(secretKey);
      const { kind, key } = splitDependencyKey(formerOwner);
      this.enqueue(kind, key);
    }
  }

  /**
   * Enqueues every dependant of `dependency` when what they rely on (`state`) changed. The last state is
   * kept only for objects something depends on: a new dependant is enqueued by its own change anyway, so
   * remembering every Secret and object of the namespace would cost memory and buy nothing.
   */
  private notifyDependants(dependency: string, state: string | undefined): void {
    const dependants = this.dependencies.dependantsOf(dependency);
    const unchanged =
      this.referencedStates.has(dependency) && this.referencedStates.get(dependency) === state;
    if (dependants.length === 0 || state === undefined) this.referencedStates.delete(dependency);
    else this.referencedStates.set(dependency, state);
    if (dependants.length === 0 || unchanged) return;
    // A dependant waits for what changed: its work has started, so it goes ahead of new keys.
    for (const dependant of dependants) {
      const { kind, key } = splitDependencyKey(dependant);
      this.controllers.get(kind)?.resume(key);
    }
  }

  private enqueueIfDeleting(dependency: string): void {
    const { kind, key } = splitDependencyKey(dependency);
    if (kind === SECRET) return this.enqueueSecretWritersIfDeleting(key);
    if (this.informers.get(kind)?.cache.get(key)?.metadata.deletionTimestamp) this.enqueue(kind, key);
  }

  /**
   * A user of the Secret `secretKey` changed or went: an object being deleted that writes it and waits for
   * its users (an ApiKey) looks again. Only kinds whose users are dependants are looked through (few
   * objects: keys), never every service with a connection Secret.
   */
  private enqueueSecretWritersIfDeleting(secretKey: string): void {
    const { namespace, name } = namespacedName(secretKey);
    for (const kind of this.options.watches.kinds) {
      const writes = kind.connectionSecret;
      if (!writes?.usersAreDependants) continue;
      for (const writer of this.informers.get(kind.kind)!.cache.list()) {
        const { metadata } = writer;
        if (metadata.namespace === namespace && metadata.deletionTimestamp && writes.name(writer) === name)
          this.enqueue(kind.kind, objectKey(writer));
      }
    }
  }

  private enqueue(kind: string, key: string): void {
    this.controllers.get(kind)?.enqueue(key);
  }

  /**
   * The sluice object of `namespace` whose connection Secret is `name` (`ApiKey team-analytics`), if any, and
   * whether it has made its cloud object (an ApiKey writes the Secret before it makes the key).
   */
  private secretWriterOf(namespace: string, name: string): { writer: string; made: boolean } | undefined {
    for (const kind of this.options.watches.kinds) {
      const writes = kind.connectionSecret?.name;
      if (!writes) continue;
      const writer = this.informers
        .get(kind.kind)!
        .cache.list()
        .find((object) => object.metadata.namespace === namespace && writes(object) === name);
      if (writer) return { writer: `${kind.kind} ${writer.metadata.name}`, made: Boolean(writer.status?.id) };
    }
    return undefined;
  }

  /**
   * Dependants of a sluice object that still exist, named for a condition: `Pipe orders`. For a kind whose
   * connection Secret signs others in (an ApiKey's), the objects using that Secret too.
   */
  private existingDependantsOf(
    kind: ManagedKind<ManagedObject, Cloud, unknown>,
    resource: ManagedObject,
  ): string[] {
    const self = dependencyKey(kind.kind, objectKey(resource));
    const dependants = new Set(this.dependencies.dependantsOf(self));
    if (kind.connectionSecret?.usersAreDependants) {
      const secret = objectKey({
        metadata: { namespace: resource.metadata.namespace, name: kind.connectionSecret.name(resource) },
      });
      for (const user of this.dependencies.dependantsOf(dependencyKey(SECRET, secret))) dependants.add(user);
    }
    dependants.delete(self);
    return [...dependants]
      .map(splitDependencyKey)
      .filter(({ kind: k, key }) => this.informers.get(k)?.cache.get(key) !== undefined)
      .map(({ kind: k, key }) => `${k} ${splitKey(key).name}`)
      .sort();
  }
}

/** Every object a resource depends on: referenced sluice objects, referenced Secrets, its credentials. */
function dependenciesOf<Cloud>(
  kind: ManagedKind<ManagedObject, Cloud, unknown>,
  object: ManagedObject,
): string[] {
  const inNamespace = (name: string) =>
    objectKey({ metadata: { namespace: object.metadata.namespace, name } });
  const keys = new Set<string>();
  for (const reference of kind.references ?? []) {
    for (const name of referencedNames(reference, object))
      keys.add(dependencyKey(reference.kind, inNamespace(name)));
  }
  for (const use of kind.secretReferences?.(object) ?? []) {
    keys.add(dependencyKey(SECRET, inNamespace(use.secretName)));
  }
  // Without its own, the namespace's default: its coming, going or change reconciles the object again.
  const credentials = credentialsNamed(kind, object);
  if (credentials) keys.add(dependencyKey(SECRET, inNamespace(credentials)));
  return [...keys];
}

/**
 * Every Secret (`namespace/name`) a reconcile of the object reads the data of, with the keys it reads: its
 * credentials (`credentialKeys`), the keys its spec references, its connection Secret (every key: sluice
 * writes it whole).
 */
function secretsUsedBy<Cloud>(
  kind: ManagedKind<ManagedObject, Cloud, unknown>,
  object: ManagedObject,
  credentialKeys?: readonly string[],
): SecretDataUse[] {
  const uses = new Map<string, Set<string> | undefined>();
  const add = (name: string, keys: readonly string[] | undefined) => {
    const secret = `${object.metadata.namespace}/${name}`;
    const known = uses.has(secret) ? uses.get(secret) : new Set<string>();
    uses.set(secret, known && keys ? new Set([...known, ...keys]) : undefined);
  };
  for (const use of kind.secretReferences?.(object) ?? []) add(use.secretName, use.keys);
  const credentials = credentialsNamed(kind, object);
  if (credentials) add(credentials, credentialKeys);
  if (kind.connectionSecret) add(kind.connectionSecret.name(object), undefined);
  return [...uses].map(([secret, keys]) => (keys ? { secret, keys: [...keys] } : { secret }));
}

/**
 * The credentials Secret of the object's namespace it may use: its own, else the namespace's default (not for
 * a kind that makes credentials, which uses the operator's).
 */
function credentialsNamed<Cloud>(
  kind: ManagedKind<ManagedObject, Cloud, unknown>,
  object: ManagedObject,
): string | undefined {
  return object.spec.credentialsRef?.name ?? (kind.makesCredentials ? undefined : NAMESPACE_CREDENTIALS);
}

function namespacedName(key: string): { namespace: string; name: string } {
  const { namespace = '', name } = splitKey(key);
  return { namespace, name };
}

/** What a dependant relies on in a referenced object: existence, its id, its cloud state, readiness. */
function referencedState(object: ManagedObject): string {
  const ready = object.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return JSON.stringify([
    object.metadata.uid,
    object.status?.id ?? null,
    object.status?.state ?? null,
    ready ?? null,
    object.metadata.deletionTimestamp ?? null,
  ]);
}
