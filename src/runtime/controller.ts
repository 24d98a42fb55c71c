import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { objectKey, type KubeObject } from './cache.ts';
import { MANAGED_BY_LABEL } from './managed/annotations.ts';
import { ManagedReconciler, type ManagedReconcilerOptions } from './managed/reconciler.ts';
import type { ManagedObject } from './managed/types.ts';
import type { OperatorMetrics } from './metrics.ts';
import { Reflector } from './reflector.ts';
import { runWorkers } from './workers.ts';
import { WorkQueue } from './workqueue.ts';

export interface ControllerOptions<R extends ManagedObject, Cloud, S> extends Omit<
  ManagedReconcilerOptions<R, Cloud, S>,
  'cache'
> {
  kubeConfig: KubeConfig;
  /** Watch one namespace only; all namespaces when omitted. */
  namespace?: string;
  concurrency: number;
  metrics: OperatorMetrics;
  logger: Logger;
}

interface OwnedSecret extends KubeObject {
  metadata: KubeObject['metadata'] & { ownerReferences?: { kind: string; name: string }[] };
  data?: Record<string, string>;
}

/**
 * One kind, wired end to end: a reflector of the kind and one of the connection Secrets sluice manages feed
 * keys into a work queue, whose workers run the generic managed reconciler. Knows no kind.
 */
export class Controller<R extends ManagedObject, Cloud, S> {
  private readonly reflector: Reflector<R>;
  private readonly secrets?: Reflector<OwnedSecret>;
  private readonly queue: WorkQueue;
  private readonly reconciler: ManagedReconciler<R, Cloud, S>;
  /** What last triggered each key, to skip events that change nothing the reconciler acts on. */
  private readonly triggers = new Map<string, string>();
  /** Secret key → owner key, so the owner is found again when its Secret is deleted. */
  private readonly secretOwners = new Map<string, string>();
  private workers?: Promise<void>;

  constructor(private readonly options: ControllerOptions<R, Cloud, S>) {
    const { kind, kubeConfig, namespace, metrics, logger } = options;
    const name = kind.kind.toLowerCase();
    this.queue = new WorkQueue({ metrics: metrics.workQueue(name) });
    this.reflector = new Reflector<R>({
      kubeConfig,
      resource: kind,
      namespace,
      onChange: (key) => this.onResourceChange(key),
      logger: logger.child({ reflector: kind.plural }),
    });
    if (kind.connectionSecret) {
      this.secrets = new Reflector<OwnedSecret>({
        kubeConfig,
        resource: { group: '', version: 'v1', plural: 'secrets' },
        namespace,
        labelSelector: Object.entries(MANAGED_BY_LABEL)
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
        onChange: (key) => this.onSecretChange(key),
        logger: logger.child({ reflector: `${kind.plural}-secrets` }),
      });
    }
    this.reconciler = new ManagedReconciler({ ...options, cache: this.reflector.cache });
  }

  get name(): string {
    return this.options.kind.kind;
  }

  start(): void {
    this.reflector.start();
    this.secrets?.start();
    this.workers = runWorkers({
      queue: this.queue,
      concurrency: this.options.concurrency,
      reconcile: this.reconciler.reconcile,
      metrics: this.options.metrics.reconciler(this.options.kind.kind.toLowerCase()),
      logger: this.options.logger,
    });
  }

  hasSynced(): boolean {
    return this.reflector.hasSynced() && (this.secrets?.hasSynced() ?? true);
  }

  async stop(): Promise<void> {
    await Promise.all([this.reflector.stop(), this.secrets?.stop()]);
    await this.queue.shutdown();
    await this.workers;
  }

  /**
   * Enqueues a resource when something the reconciler acts on changed: its spec (generation), annotations
   * or deletion. Status writes, ours included, change none of these; reacting to them would turn every
   * failed reconcile into an immediate retry and defeat the backoff. Drift checks come from requeues.
   */
  private onResourceChange(key: string): void {
    const object = this.reflector.cache.get(key);
    if (!object) {
      this.triggers.delete(key);
      this.queue.add(key);
      return;
    }
    const { generation, annotations, deletionTimestamp } = object.metadata;
    const trigger = JSON.stringify([generation, annotations ?? {}, deletionTimestamp ?? null]);
    if (this.triggers.get(key) === trigger) return;
    this.triggers.set(key, trigger);
    this.queue.add(key);
  }

  /**
   * Enqueues the owner of a connection Secret that was deleted or lost a required key, so the values are
   * restored promptly. The reconciler's own writes leave the Secret complete and so trigger nothing.
   */
  private onSecretChange(secretKey: string): void {
    const secret = this.secrets?.cache.get(secretKey);
    const owner = secret?.metadata.ownerReferences?.find((ref) => ref.kind === this.options.kind.kind);
    if (secret && owner) {
      const ownerKey = objectKey({ metadata: { name: owner.name, namespace: secret.metadata.namespace } });
      this.secretOwners.set(secretKey, ownerKey);
      const data = secret.data ?? {};
      const required = this.options.kind.connectionSecret?.requiredKeys ?? [];
      if (required.some((key) => !data[key])) this.queue.add(ownerKey);
      return;
    }
    const formerOwner = this.secretOwners.get(secretKey);
    if (formerOwner) {
      this.secretOwners.delete(secretKey);
      this.queue.add(formerOwner);
    }
  }
}
