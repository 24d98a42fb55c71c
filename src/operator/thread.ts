import { Worker } from 'node:worker_threads';

/**
 * Starts `entry` in a worker thread. Compiled (the image), the entry is JavaScript and runs as it is. From the
 * sources (tsx, vitest) it is TypeScript, and a loader registered in this thread does not reach a new thread,
 * so the thread registers tsx itself before it imports the entry.
 */
export function startThread(entry: URL, workerData: unknown): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
