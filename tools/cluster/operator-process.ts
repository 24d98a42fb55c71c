// `sluice run` as a child process, for tests and scripts that kill it (kill -9 needs a real process).
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './assets.ts';

export interface SluiceRunOptions {
  kubeconfig: string | undefined;
  namespace: string;
  /** `<namespace>/<name>` of the cloud credentials Secret. */
  credentialsSecret: string;
  /** Come last, so they override the defaults (quotas off, log level warn, no listeners). */
  flags?: string[];
  stdio?: StdioOptions;
}

export function spawnSluiceRun(options: SluiceRunOptions): ChildProcess {
  return spawn(
    process.execPath,
    // The sources, never a dist/ that a build may have left behind older than them.
    [
      '--import',
      'tsx',
      join(repoRoot, 'src', 'cli.ts'),
      'run',
      `--kubeconfig=${options.kubeconfig}`,
      `--namespace=${options.namespace}`,
      `--credentials-secret=${options.credentialsSecret}`,
      '--poll-interval=200ms',
      '--management-quota=off',
      '--alerting-quota=off',
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--log-level=warn',
      ...(options.flags ?? []),
    ],
    { stdio: options.stdio ?? 'ignore' },
  );
}
