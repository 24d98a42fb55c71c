import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releasePidLock, takePidLock, waitForPidLock } from '../../../tools/cluster/pid-lock.ts';

describe('a pid lock file', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-pid-lock-'));
    lock = join(dir, 'build.pid');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is taken when free, and names its live holder to the next', () => {
    expect(takePidLock(lock)).toEqual({ taken: true });
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    expect(takePidLock(lock)).toEqual({ taken: false, holder: process.pid });
    releasePidLock(lock);
    expect(takePidLock(lock)).toEqual({ taken: true });
  });

  it('is taken over from a holder that is gone', () => {
    // Beyond the kernel's largest process id: no process holds it.
    writeFileSync(lock, String(2 ** 22 + 1));
    expect(takePidLock(lock)).toEqual({ taken: true });
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
  });

  it('is taken over when older than it may be, though its id names a live process', () => {
    writeFileSync(lock, String(process.ppid));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, hourAgo, hourAgo);
    expect(takePidLock(lock, 30 * 60_000)).toEqual({ taken: true });
  });

  it('is waited for while held, and taken once released', async () => {
    writeFileSync(lock, String(process.ppid));
    const holders: number[] = [];
    let taken = false;
    const waiting = waitForPidLock(lock, { onWait: (holder) => holders.push(holder) }).then(() => {
      taken = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(taken).toBe(false);
    expect(holders).toEqual([process.ppid]);
    releasePidLock(lock);
    await waiting;
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
  });
});
