// Child-process plumbing for the test control plane: free ports, spawning with
// logs captured to files, graceful-then-forced stop, and exit-time cleanup so
// that no etcd/kube-apiserver or temp dir outlives the process that made it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';

/** Asks the kernel for a free loopback port (bind to 0, read it, release). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

// util-linux's setpriv asks the kernel to SIGKILL the child when our process
// dies, even by SIGKILL/OOM when no exit handler can run. It execs in place,
// so the pid we hold is the real server's pid. Absent setpriv, the exit
// handlers below are the only guard.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

export interface Managed {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves with the exit code/signal once the process has exited. */
  readonly exited: Promise<string>;
}

/**
 * The test cluster's Go processes collect garbage at 5× their live heap, not Go's 2×: the machine has memory to
 * spare and two cores the suite keeps busy, and collection was about 15% of the test apiserver's CPU in a
 * profile. Over the operator's lifecycle files the apiserver and etcd used 34.4 CPU-s instead of 38.4. A GOGC
 * of the caller's wins.
 */
const GO_RUNTIME_ENV = { GOGC: '400' };

/** Spawns `bin` with stdout+stderr appended to `logFile`. Same process group as ours, so a terminal Ctrl-C reaches it too. */
export function startProcess(name: string, bin: string, args: string[], logFile: string): Managed {
  const fd = openSync(logFile, 'a');
  const [cmd, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', bin, ...args]] : [bin, args];
  let child: ChildProcess;
  try {
    child = spawn(cmd, argv, { stdio: ['ignore', fd, fd], env: { ...GO_RUNTIME_ENV, ...process.env } });
  } finally {
    closeSync(fd); // the child holds its own copy
  }
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
    child.once('error', (err) => resolve(`spawn error: ${err.message}`));
  });
  // Node would otherwise keep the event loop alive for these children; their
  // lifetime is governed by stop() and the exit hooks instead.
  child.unref();
  return { name, child, logFile, exited };
}

function alive(p: Managed): boolean {
  return p.child.exitCode === null && p.child.signalCode === null && p.child.pid !== undefined;
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
export async function stopProcess(p: Managed, graceMs = 5_000): Promise<void> {
  if (!alive(p)) return;
  p.child.kill('SIGTERM');
  // A ref'd timer on purpose: the child is unref'd, so without it Node could
  // consider the loop idle and exit mid-stop.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), graceMs)));
  try {
    if ((await Promise.race([p.exited, timeout])) === 'timeout' && alive(p)) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Last lines of a process log, for error messages. */
export function logTail(p: Pick<Managed, 'logFile'>, lines = 25): string {
  try {
    return readFileSync(p.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// ---- exit-time cleanup ------------------------------------------------------

interface Resources {
  processes: Managed[];
  dirs: string[];
  /** Synchronous teardown of what is not a process or a directory (a node's pods, bridge and rules). */
  cleanup?: () => void;
}
const live = new Set<Resources>();
let hooksInstalled = false;

/** Synchronous last resort: runs in 'exit' where nothing async can happen. */
function killAllNow(): void {
  for (const r of live) {
    for (const p of r.processes) if (alive(p)) p.child.kill('SIGKILL');
    try {
      r.cleanup?.();
    } catch {
      // a last resort: the directories still go
    }
    for (const d of r.dirs) rmSync(d, { recursive: true, force: true });
  }
  live.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', killAllNow);
  // A signal would kill us without running 'exit' handlers. Only take over
  // when nobody else handles the signal (e.g. scripts/cluster.ts does its
  // own graceful stop); then re-raise so the exit status stays conventional.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const handler = (): void => {
      if (process.listenerCount(sig) > 1) return;
      killAllNow();
      process.removeListener(sig, handler);
      process.kill(process.pid, sig);
    };
    process.on(sig, handler);
  }
}

/**
 * Registers processes and dirs to be destroyed if the process exits before
 * `release()` is called. Returns `release`, to call after a clean stop.
 */
export function guard(resources: Resources): () => void {
  installHooks();
  live.add(resources);
  return () => {
    live.delete(resources);
  };
}
