import type { Logger } from 'pino';
import type { KubeObject, ReadonlyCache } from '../kube/cache.ts';
import { Informer } from '../kube/informer.ts';
import type { KubeAccess } from '../kube/kube-config.ts';
import { informerFor, unionOf, type SharedInformer } from '../kube/namespaced-informers.ts';
import { SECRETS, type ResourceType } from '../kube/api-path.ts';
import type { SecretObject } from '../kube/secret-data.ts';
import type { CloudIdGrant } from '../managed/id-access.ts';
import type { ManagedKind, ManagedObject } from '../managed/types.ts';
import { SecretCache } from './secret-cache.ts';

export interface WatchesOptions<Cloud> {
  kubeConfig: KubeAccess;
  kinds: readonly ManagedKind<ManagedObject, Cloud, unknown>[];
  /** Watch only these namespaces; all namespaces when omitted or empty. */
  namespaces?: readonly string[];
  /** Single Secrets to mirror beyond the watched namespace (the operator's credentials Secret). */
  extraSecrets?: readonly { namespace: string; name: string }[];
  /** The grants that let a plain id reach another namespace's cloud objects, watched when given. */
  grantResource?: ResourceType;
  logger: Logger;
}

/**
 * What the operator watches, built before anything that reads it: one shared informer per kind, the Secrets'
 * metadata with the cache of the data sluice uses, and the grants. The cloud clients, the drift planner and
 * the manager each read these caches; none of them builds one, so none needs another to exist first.
 */
export class Watches<Cloud> {
  readonly secrets: SecretCache;
  /** Every watched Secret's metadata (never its data), as one informer. */
  readonly secretMetadata: SharedInformer<SecretObject>;
  /** Its cache, the same for the informer's life: read directly, not asked for each time. */
  private readonly secretsWatched: ReadonlyCache<SecretObject>;
  /** By kind name. */
  readonly objects: ReadonlyMap<string, SharedInformer<ManagedObject>>;
  readonly grants: SharedInformer<CloudIdGrant & KubeObject> | undefined;
  readonly kinds: readonly ManagedKind<ManagedObject, Cloud, unknown>[];

  constructor(options: WatchesOptions<Cloud>) {
    this.kinds = options.kinds;
    const { kubeConfig, logger } = options;
    const namespaces = options.namespaces?.length ? options.namespaces : undefined;
    const secretInformers: Informer<SecretObject>[] = [];
    // Every Secret's metadata, never its data: what sluice does not use costs no memory whatever its size.
    for (const namespace of namespaces ?? [undefined]) {
      secretInformers.push(
        new Informer<SecretObject>({
          kubeConfig,
          resource: SECRETS,
          ...(namespace ? { namespace } : {}),
          logger: logger.child({ reflector: 'secrets' }),
          shareStrings: false,
          metadataOnly: true,
        }),
      );
    }
    for (const extra of options.extraSecrets ?? []) {
      if (!namespaces || namespaces.includes(extra.namespace)) continue;
      secretInformers.push(
        new Informer<SecretObject>({
          kubeConfig,
          resource: SECRETS,
          namespace: extra.namespace,
          fieldSelector: `metadata.name=${extra.name}`,
          logger: logger.child({ reflector: `secret ${extra.namespace}/${extra.name}` }),
          shareStrings: false,
          metadataOnly: true,
        }),
      );
    }
    this.secretMetadata = unionOf(secretInformers);
    this.secretsWatched = this.secretMetadata.cache;
    this.secrets = new SecretCache({
      metadata: this.secretsWatched,
      kubeConfig,
      pinned: (options.extraSecrets ?? []).map(({ namespace, name }) => `${namespace}/${name}`),
    });
    const { grantResource } = options;
    this.grants =
      grantResource &&
      informerFor<CloudIdGrant & KubeObject>(namespaces, {
        kubeConfig,
        resource: grantResource,
        logger: logger.child({ reflector: grantResource.plural }),
      });
    this.objects = new Map(
      options.kinds.map((kind) => [
        kind.kind,
        informerFor<ManagedObject>(namespaces, {
          kubeConfig,
          resource: kind,
          logger: logger.child({ reflector: kind.plural }),
        }),
      ]),
    );
  }

  /** Every sluice object the caches hold, with its kind: what the drift planner and gauges count. */
  *all(): Generator<{ kind: ManagedKind<ManagedObject, Cloud, unknown>; object: ManagedObject }> {
    for (const kind of this.kinds) {
      for (const object of this.objects.get(kind.kind)!.cache.list()) yield { kind, object };
    }
  }

  /**
   * Whether the watch sees this Secret, whether or not its data is held: which credentials Secret an object
   * uses turns on a Secret existing (its namespace's default), never on its data.
   */
  secretExists(namespace: string, name: string): boolean {
    return this.secretsWatched.get(`${namespace}/${name}`) !== undefined;
  }

  /** Every informer, Secrets first. */
  informers(): SharedInformer<KubeObject>[] {
    return [this.secretMetadata, ...this.objects.values(), ...(this.grants ? [this.grants] : [])];
  }
}
