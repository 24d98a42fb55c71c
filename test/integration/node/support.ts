import { existsSync } from 'node:fs';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { CallRecord } from '../../../src/emulator/call-log.ts';
import { findAssets } from '../../../tools/cluster/assets.ts';
import { nodeUnavailableReason } from '../../../tools/cluster/node.ts';

/** Why the node's tests cannot run here (not root, a package or a binary missing), or undefined. */
export function nodeSkipReason(): string | undefined {
  const reason = nodeUnavailableReason();
  if (reason) return reason;
  const assets = findAssets();
  const missing = [assets.kubelet, assets.kubeScheduler, assets.kubeProxy].filter((p) => !existsSync(p));
  return missing.length ? `not built: ${missing.join(', ')} (npm run envtest:setup)` : undefined;
}

/** Polls `look` until it returns something, for state that settles in its own time on a busy machine. */
export async function eventually<T>(
  what: string,
  look: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const found = await look();
      if (found !== undefined) return found;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`, { cause: last });
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The names (starting with `prefix`) of the services the cloud created, one per successful create. */
export function serviceCreates(log: CallRecord[], prefix: string): string[] {
  return log
    .filter(
      (c) =>
        c.method === 'POST' && c.route === '/v1/organizations/:organizationId/services' && c.status < 300,
    )
    .map((c) => (c.body as { name: string }).name)
    .filter((name) => name.startsWith(prefix));
}

/** A sluice object as the node's tests read it: only its conditions. */
export type Sluice = KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } };

export const isReady = (object: Sluice | undefined) =>
  object?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
