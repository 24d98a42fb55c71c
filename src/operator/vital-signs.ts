import type { Worker } from 'node:worker_threads';
import { levels, type Logger } from 'pino';
import type { RunningServer } from '../kube/health-and-metrics-servers.ts';
import { startThread } from './thread.ts';
import { monotonicMs, VitalState } from './vital-state.ts';

/** The thread's module beside this one: TypeScript from the sources, JavaScript once compiled. */
const THREAD_ENTRY = new URL(
  `./vital-signs-thread${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`,
  import.meta.url,
);

/** What the vital-signs thread is started with. */
export interface VitalSignsSettings {
  buffer: SharedArrayBuffer;
  healthProbeBindAddress: string;
  stallTimeoutMs: number;
  timeScale: number;
  logLevel: string;
  /** Campaign for this Lease; omitted without leader election. */
  leaderElection?: { kubeconfig: string | undefined; namespace: string; name: string };
}

export type FromVitalSigns =
  | { type: 'listening'; port?: number; url?: string }
  | { type: 'started-leading'; activeUntil: number | undefined }
  | { type: 'stopped-leading' }
  | { type: 'released' }
  | { type: 'closed' }
  | { type: 'log'; line: string };

export type ToVitalSigns = { type: 'release' } | { type: 'close' };

export interface VitalSignsOptions extends Omit<VitalSignsSettings, 'buffer' | 'logLevel'> {
  logger: Logger;
  /** This process leads now (see LeaderElector's onStartedLeading). */
  onStartedLeading(predecessor: { activeUntil: number | undefined }): void;
  /** This process lost the Lease, or its vital signs stopped: it must stop acting at once. */
  onStoppedLeading(): void;
}

/**
 * The operator's vital signs (probes and leader Lease), run in a thread of their own so that a burst of work on
 * the main thread can neither make the probes time out nor let the Lease lapse. The main thread reports its
 * progress into shared memory, which the probes judge; the thread writes until when this process may act as
 * leader, which every cloud call checks synchronously (`mayAct`) before it is sent, however late the main thread
 * hears that leadership ended.
 */
export class VitalSigns {
  private readonly state = new VitalState();
  private readonly thread: Worker;
  private readonly replies = new Map<FromVitalSigns['type'], () => void>();
  private ended = false;
  probes: RunningServer | undefined;

  private constructor(private readonly options: VitalSignsOptions) {
    const { logger, onStartedLeading: _started, onStoppedLeading: _stopped, ...settings } = options;
    this.turned(0);
    this.thread = startThread(THREAD_ENTRY, {
      ...settings,
      buffer: this.state.buffer,
      logLevel: logger.level,
    } satisfies VitalSignsSettings);
    this.thread.on('message', (message: FromVitalSigns) => this.receive(message));
    this.thread.on('error', (error) => logger.error({ err: error }, 'the vital-signs thread failed'));
  }

  /** Starts the thread; resolves once its probe server listens (when it has one). */
  static async start(options: VitalSignsOptions): Promise<VitalSigns> {
    const vitals = new VitalSigns(options);
    const { thread } = vitals;
    const exited = new Promise<never>((_, reject) =>
      thread.once('exit', (code) => reject(new Error(`the vital-signs thread ended (exit ${code})`))),
    );
    await Promise.race([vitals.reply('listening'), exited]);
    exited.catch(() => vitals.lost());
    return vitals;
  }

  /** The thread ended without being asked: no probes, no Lease, so nothing may act any more. */
  private lost(): void {
    if (this.ended) return;
    this.ended = true;
    this.options.logger.error('the vital-signs thread ended; stopping');
    this.state.write('leadingUntil', 0);
    this.options.onStoppedLeading();
  }

  /**
   * Whether this process may act (call the cloud) now: always without leader election, else only until the
   * moment its last successful renewal lets it, which comes before any other candidate may take the Lease.
   */
  mayAct(): boolean {
    return this.options.leaderElection === undefined || monotonicMs() < this.state.read('leadingUntil');
  }

  /**
   * The main event loop turned; `workStalledSince` is when a work queue holding work last moved, if one has not
   * moved since (0 when every queue moves or is empty).
   */
  turned(workStalledSince: number): void {
    this.state.write('mainTurnedAt', monotonicMs());
    this.state.write('workStalledSince', workStalledSince);
  }

  synced(): void {
    this.state.write('synced', 1);
  }

  /** The operator is shutting down: not ready from now on. */
  stopping(): void {
    this.state.write('stopping', 1);
  }

  /** Stops acting as leader and hands the Lease back. */
  async release(): Promise<void> {
    this.stopping();
    if (this.ended) return;
    this.thread.postMessage({ type: 'release' } satisfies ToVitalSigns);
    await this.reply('released');
  }

  /** Closes the probe server and ends the thread. */
  async close(): Promise<void> {
    if (!this.ended) {
      this.thread.postMessage({ type: 'close' } satisfies ToVitalSigns);
      await this.reply('closed');
      this.ended = true;
    }
    await this.thread.terminate();
  }

  private reply(type: FromVitalSigns['type']): Promise<void> {
    return new Promise((resolve) => this.replies.set(type, resolve));
  }

  private receive(message: FromVitalSigns): void {
    switch (message.type) {
      case 'log':
        return relay(this.options.logger, message.line);
      case 'listening':
        if (message.port !== undefined && message.url !== undefined) {
          const { port, url } = message;
          this.probes = { port, url, close: () => this.close() };
        }
        break;
      case 'started-leading':
        this.options.onStartedLeading({ activeUntil: message.activeUntil });
        break;
      case 'stopped-leading':
        this.options.onStoppedLeading();
        break;
    }
    this.replies.get(message.type)?.();
    this.replies.delete(message.type);
  }
}

/** A line the thread's logger wrote, logged again by the main thread's logger at its level. */
function relay(logger: Logger, line: string): void {
  const {
    level,
    msg,
    time: _time,
    pid: _pid,
    hostname: _hostname,
    name: _name,
    ...fields
  } = JSON.parse(line) as Record<string, unknown> & { level: number; msg?: string };
  const label = levels.labels[level] as 'info';
  logger[label]?.(fields, msg);
}
