// A lock file that holds its holder's process id: taken by creating the file, and stale once that process is
// gone (a run killed midway leaves it behind, and the next run takes it over).
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Takes the lock at `path`; when a live process holds it, returns that process's id instead. `staleAfterMs`:
 * a lock older than that is stale whoever holds it (its process id may belong to another process by now).
 */
export function takePidLock(
  path: string,
  staleAfterMs = Infinity,
): { taken: true } | { taken: false; holder: number } {
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return { taken: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(readFileSync(path, 'utf8'));
    const fresh = Date.now() - statSync(path).mtimeMs < staleAfterMs;
    if (holder > 0 && processExists(holder) && fresh) return { taken: false, holder };
    rmSync(path, { force: true });
  }
}

/** Takes the lock at `path`, waiting while a live process holds it. */
export async function waitForPidLock(
  path: string,
  opts: { signal?: AbortSignal; onWait?: (holder: number) => void; staleAfterMs?: number } = {},
): Promise<void> {
  for (let waited = false; ; waited = true) {
    const lock = takePidLock(path, opts.staleAfterMs);
    if (lock.taken) return;
    if (!waited) opts.onWait?.(lock.holder);
    await sleep(500, undefined, opts.signal ? { signal: opts.signal } : {});
  }
}

export function releasePidLock(path: string): void {
  rmSync(path, { force: true });
}

/** Whether a process with this id exists (one of another user's counts). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
