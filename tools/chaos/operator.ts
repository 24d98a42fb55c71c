// The operator of a chaos run: one `sluice run` child at a time, killed with SIGKILL and started again, every
// line it writes kept for the secret scan, its metrics endpoint on a known port.
import type { ChildProcess } from 'node:child_process';
import { spawnSluiceRun, type SluiceRunOptions } from '../cluster/operator-process.ts';
import { freePort } from '../cluster/processes.ts';

export class ChaosOperator {
  readonly output: string[] = [];
  kills = 0;
  /** Exits nobody asked for (a lost leader lease during an apiserver restart), each followed by a start. */
  exits = 0;
  private restartAfterExit: NodeJS.Timeout | undefined;
  private child: ChildProcess | undefined;
  private metricsPort = 0;

  constructor(private readonly options: Omit<SluiceRunOptions, 'stdio'>) {}

  async start(): Promise<void> {
    this.metricsPort ||= await freePort();
    const child = spawnSluiceRun({
      ...this.options,
      flags: [`--metrics-bind-address=127.0.0.1:${this.metricsPort}`, ...(this.options.flags ?? [])],
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout!, child.stderr!])
      stream.on('data', (chunk: Buffer) => this.output.push(chunk.toString('utf8')));
    this.child = child;
    // A run that dies (Ctrl-C, a failed assertion's worker exit) must not leave an operator behind.
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    child.once('exit', () => {
      process.removeListener('exit', orphaned);
      // The operator exits on purpose when it loses its leader lease (an apiserver restart slower than the
      // renew deadline, on a loaded machine): started again a second later, as its Deployment would.
      if (this.child !== child) return;
      this.child = undefined;
      this.exits += 1;
      this.restartAfterExit = setTimeout(() => void this.start(), 1_000);
    });
  }

  /** kill -9, then a new process at once (as a Deployment's restart would, only faster). */
  async killAndRestart(): Promise<void> {
    await this.signal('SIGKILL');
    this.kills += 1;
    await this.start();
  }

  /** The Prometheus text of the running process (empty when it is not listening yet). */
  async metrics(): Promise<string> {
    try {
      return await (await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`)).text();
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    clearTimeout(this.restartAfterExit);
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}
