// A process held to a share of one core, as a container's CPU limit holds it (cgroup v1 `cpu` controller,
// CFS quota per 100 ms period), for benchmarks that ask how the operator behaves on a small CPU limit.
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CPU_CONTROLLER = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

/** Why a process cannot be held to a CPU share here (not root, no cgroup v1 cpu controller), or undefined. */
export function cpuLimitUnavailableReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'holding a process to a CPU share needs root';
  if (!existsSync(join(CPU_CONTROLLER, 'cpu.cfs_quota_us')))
    return `no cgroup v1 cpu controller at ${CPU_CONTROLLER}`;
  return undefined;
}

/**
 * Moves process `pid` (every thread it has and will have) into a cgroup of its own allowed `cores` of CPU
 * time (0.5: half a core). Returns the function that removes the cgroup once the process has exited.
 */
export function limitCpu(pid: number, cores: number): () => void {
  const reason = cpuLimitUnavailableReason();
  if (reason) throw new Error(reason);
  if (!(cores > 0)) throw new RangeError(`cores must be positive, got ${cores}`);
  const dir = join(CPU_CONTROLLER, `sluice-cpu-${pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
  writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
  writeFileSync(join(dir, 'cgroup.procs'), String(pid));
  return () => {
    try {
      rmdirSync(dir);
    } catch {
      // Still holding a process (it has not exited yet): the cgroup stays, empty once it has.
    }
  };
}
