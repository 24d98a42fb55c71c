import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeAccess } from './kube-config.ts';
import { pino, type Logger } from 'pino';
import { apiPath, LEASES } from './api-path.ts';
import { KubeApiError, kubeRequestJson } from './kube-http.ts';
import { timing } from '../base/timings.ts';

export interface LeaderElectionOptions {
  kubeConfig: KubeAccess;
  /** Namespace and name of the coordination.k8s.io/v1 Lease. */
  namespace: string;
  name: string;
  /** Unique per process; defaults to `<hostname>_<uuid>`. */
  identity?: string;
  /** How long others wait after the last renewal they saw before taking over. Default 15 (`timing`). */
  leaseDurationSeconds?: number;
  /** The leader gives up if it cannot renew for this long; must be below the lease duration. Default 10. */
  renewDeadlineSeconds?: number;
  /** Pause between attempts to acquire or renew. Default 2. */
  retryPeriodSeconds?: number;
  /** On stop(), hand the lease back so the next leader need not wait out the lease duration. Default true. */
  releaseOnStop?: boolean;
  /**
   * Called once the lease is ours; `leading` is aborted when leadership ends for any reason. `predecessor`
   * says until when the previous holder may have acted as leader (see `previousLeaderActiveUntil`).
   */
  onStartedLeading(leading: AbortSignal, predecessor: { activeUntil: number | undefined }): void;
  /** Called when the lease is lost (not after stop()). The operator exits: its caches may be stale. */
  onStoppedLeading(): void;
  /** Called whenever a different holder is observed, including ourselves. */
  onNewLeader?(identity: string): void;
  /**
   * Called after every attempt to acquire or renew, with how it ended and when it started (performance.now()):
   * a leader whose attempt starting at `t` succeeded holds the lease at least until `t` + the lease duration
   * in the eyes of every other candidate.
   */
  onAttempt?(outcome: Attempt, startedAt: number): void;
  logger?: Logger;
}

export interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export type Attempt = 'ours' | 'held-by-other' | 'failed';

/**
 * Leader election on a Lease, following client-go's leaderelection: only the holder runs controllers;
 * others poll every retry period and take over once the lease has not been renewed for its duration.
 * Expiry is judged by when *this* process last saw the lease change, never by the timestamps in it, so
 * clock skew between nodes does not matter. Writes use the lease's resourceVersion, so of two candidates
 * racing for an expired lease exactly one wins (the other gets 409 Conflict).
 */
export class LeaderElector {
  readonly identity: string;

  private readonly leaseDurationMs: number;
  /** The leader gives up when it could not renew for this long (ms). */
  readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly logger: Logger;

  private lastSeen: { resourceVersion: string | undefined; at: number } | undefined;
  private lease: Lease | undefined;
  /** The lease as it was before this process took it (undefined: this process created it). */
  private replaced: Lease | undefined;
  private leading: AbortController | undefined;
  private reportedLeader: string | undefined;
  private stopped = false;
  private readonly stopController = new AbortController();
  private running: Promise<'lost' | 'stopped'> | undefined;

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    const seconds = (given: number | undefined) => (given === undefined ? undefined : given * 1000);
    this.leaseDurationMs = seconds(options.leaseDurationSeconds) ?? timing.leaseDurationMs;
    this.renewDeadlineMs = seconds(options.renewDeadlineSeconds) ?? timing.renewDeadlineMs;
    this.retryPeriodMs = seconds(options.retryPeriodSeconds) ?? timing.leaseRetryPeriodMs;
    if (this.renewDeadlineMs >= this.leaseDurationMs) {
      throw new RangeError('renewDeadlineSeconds must be less than leaseDurationSeconds');
    }
    this.logger = (options.logger ?? pino({ enabled: false })).child({
      lease: `${options.namespace}/${options.name}`,
      identity: this.identity,
    });
  }

  isLeader(): boolean {
    return this.leading !== undefined;
  }

  /**
   * Campaigns until this process holds the lease, then renews it. Resolves with `lost` after
   * `onStoppedLeading` was called, or `stopped` after stop().
   */
  run(): Promise<'lost' | 'stopped'> {
    this.running ??= this.campaignAndLead();
    return this.running;
  }

  /** Stops campaigning or renewing and, if leading and `releaseOnStop`, releases the lease. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.stopController.abort();
    }
    await this.running;
  }

  private async campaignAndLead(): Promise<'lost' | 'stopped'> {
    this.logger.info('campaigning for leadership');
    while (!this.stopped) {
      if ((await this.tryAcquireOrRenew(this.renewDeadlineMs)) === 'ours') break;
      await this.sleep(jittered(this.retryPeriodMs));
    }
    if (this.stopped) return 'stopped';

    this.leading = new AbortController();
    const activeUntil = previousLeaderActiveUntil(this.replaced, Date.now());
    this.logger.info(
      activeUntil === undefined ? {} : { predecessorActiveUntil: new Date(activeUntil).toISOString() },
      'became leader',
    );
    this.options.onStartedLeading(this.leading.signal, { activeUntil });
    const end = await this.renewUntilLostOrStopped();
    this.leading.abort();
    this.leading = undefined;
    if (end === 'lost') {
      this.logger.error('lost leadership');
      this.options.onStoppedLeading();
    } else if (this.options.releaseOnStop ?? true) {
      await this.release();
    }
    return end;
  }

  private async renewUntilLostOrStopped(): Promise<'lost' | 'stopped'> {
    for (;;) {
      await this.sleep(this.retryPeriodMs);
      if (this.stopped) return 'stopped';
      // Retry until the renew deadline, counted from this round's start; give up at once if someone
      // else validly holds the lease.
      const deadline = performance.now() + this.renewDeadlineMs;
      let attempt: Attempt = 'failed';
      while (!this.stopped && performance.now() < deadline) {
        attempt = await this.tryAcquireOrRenew(deadline - performance.now());
        if (attempt !== 'failed') break;
        await this.sleep(Math.min(this.retryPeriodMs, Math.max(0, deadline - performance.now())));
      }
      if (this.stopped) return 'stopped';
      if (attempt !== 'ours') return 'lost';
    }
  }

  private async tryAcquireOrRenew(timeoutMs: number): Promise<Attempt> {
    const startedAt = performance.now();
    const outcome = await this.attempt(timeoutMs);
    this.options.onAttempt?.(outcome, startedAt);
    return outcome;
  }

  private async attempt(timeoutMs: number): Promise<Attempt> {
    const now = new Date();
    try {
      // AbortSignal.timeout wants a whole number of milliseconds.
      const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)));
      const signal = AbortSignal.any([this.stopController.signal, timeout]);
      const current = await this.getLease(signal);
      if (!this.leading) this.replaced = current;
      if (!current) {
        this.lease = await this.write('POST', this.leaseBody(undefined, now), signal);
        this.observe(this.lease);
        return 'ours';
      }
      this.observe(current);
      const holder = current.spec?.holderIdentity ?? '';
      const expiresAt = this.lastSeen!.at + (current.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder && holder !== this.identity && performance.now() < expiresAt) return 'held-by-other';

      this.lease = await this.write('PUT', this.leaseBody(current, now), signal);
      this.observe(this.lease);
      return 'ours';
    } catch (error) {
      if (this.stopped) return 'failed';
      const conflict =
        error instanceof KubeApiError && (error.statusCode === 409 || error.statusCode === 422);
      // A conflict is the normal outcome of losing a race for the lease; anything else is worth a warning.
      if (conflict) this.logger.debug({ err: error }, 'lost a race to write the lease');
      else this.logger.warn({ err: error }, 'could not acquire or renew the lease');
      return 'failed';
    }
  }

  private leaseBody(current: Lease | undefined, now: Date): Lease {
    const spec = current?.spec ?? {};
    const keepsHolder = spec.holderIdentity === this.identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.options.name,
        namespace: this.options.namespace,
        ...(current ? { resourceVersion: current.metadata.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: this.identity,
        // Whole seconds, as the Lease's schema wants: a compressed duration rounds up (others wait longer).
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
        acquireTime: keepsHolder && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (current && !keepsHolder ? 1 : 0),
      },
    };
  }

  /** Gives the lease up (empty holder, 1 s duration) so a successor takes over at its next attempt. */
  private async release(): Promise<void> {
    if (!this.lease || this.lease.spec?.holderIdentity !== this.identity) return;
    const now = microTime(new Date());
    try {
      await this.write(
        'PUT',
        {
          ...this.lease,
          spec: { ...this.lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
        },
        AbortSignal.timeout(this.renewDeadlineMs),
      );
      this.logger.info('released the lease');
    } catch (error) {
      this.logger.warn({ err: error }, 'could not release the lease; the next leader waits for it to expire');
    }
  }

  private async getLease(signal: AbortSignal): Promise<Lease | undefined> {
    try {
      return await kubeRequestJson<Lease>(this.options.kubeConfig, {
        path: apiPath(LEASES, this.options.namespace, this.options.name),
        signal,
      });
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  private write(method: 'POST' | 'PUT', lease: Lease, signal: AbortSignal): Promise<Lease> {
    const path = apiPath(LEASES, this.options.namespace, method === 'POST' ? undefined : this.options.name);
    return kubeRequestJson<Lease>(this.options.kubeConfig, { method, path, body: lease, signal });
  }

  /** Records when this process saw the lease change, the basis of its expiry judgement. */
  private observe(lease: Lease): void {
    const holder = lease.spec?.holderIdentity ?? '';
    if (this.lastSeen?.resourceVersion !== lease.metadata.resourceVersion) {
      this.lastSeen = { resourceVersion: lease.metadata.resourceVersion, at: performance.now() };
    }
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.logger.info({ leader: holder }, 'new leader observed');
      this.options.onNewLeader?.(holder);
    }
  }

  /** Waits, but returns early when stop() is called. */
  private async sleep(ms: number): Promise<void> {
    await delay(ms, undefined, { signal: this.stopController.signal }).catch(() => {});
  }
}

/**
 * Allowance for the clocks of two nodes: the previous holder wrote the lease's times by its own clock. NTP keeps
 * nodes far closer; a second also covers a renewTime written with second precision.
 */
export const LEASE_CLOCK_SKEW_MS = 1_000;

/**
 * Until when (ms since the epoch, this process's clock) the previous holder of `lease` may have acted as leader,
 * judged by the process that took it over at `now`: undefined when there was no lease (no holder ever), its
 * release time when it was handed back (a holder releases only after its work stopped), else its last renewal
 * plus the lease duration (a holder stops acting when it cannot renew in time). Never later than `now`.
 */
export function previousLeaderActiveUntil(lease: Lease | undefined, now: number): number | undefined {
  if (!lease) return undefined;
  const renewed = Date.parse(lease.spec?.renewTime ?? '');
  if (Number.isNaN(renewed)) return now;
  const held = lease.spec?.holderIdentity ? (lease.spec.leaseDurationSeconds ?? 0) * 1000 : 0;
  return Math.min(now, renewed + held + LEASE_CLOCK_SKEW_MS);
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, which the apiserver requires. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** client-go's wait.Jitter(period, 1.2): candidates spread out instead of polling in step. */
function jittered(ms: number): number {
  return ms * (1 + Math.random() * 1.2);
}
