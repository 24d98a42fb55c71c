// What bench:provision and bench:teardown share: the emulator at the real cloud's rate limit and state steps,
// the operator at its default quota (which is the real limit), N services with a pipe each.
import { OperatorConfig } from '../src/operator/config.ts';
import { startStack, type Cluster, type Stack } from './harness.ts';

const DEFAULT_QUOTA = OperatorConfig.parse({}).managementQuota as {
  requests: number;
  windowMs: number;
};

/** The flags, with their defaults: 20 services, 15 s per state step, the real 10 requests per 10 s. */
export const REAL_CLOUD_FLAGS = {
  services: '20',
  'transition-ms': '15000',
  requests: String(DEFAULT_QUOTA.requests),
  'window-s': String(DEFAULT_QUOTA.windowMs / 1000),
  'timeout-s': '900',
};

export interface RealCloud {
  stack: Stack;
  services: number;
  stepMs: number;
  requests: number;
  windowSeconds: number;
  /** How the figures name the run. */
  label: string;
}

/** A stack at the real cloud's pace, from the parsed `REAL_CLOUD_FLAGS`. */
export async function startRealCloud(
  cluster: Cluster,
  name: string,
  args: Record<string, string>,
): Promise<RealCloud> {
  const services = Number(args.services);
  const stepMs = Number(args['transition-ms']);
  const requests = Number(args.requests);
  const windowSeconds = Number(args['window-s']);
  const stack = await startStack(cluster, name, {
    rateLimit: { requests, windowSeconds },
    transitionMs: stepMs,
    flags: { managementQuota: `${requests}/${windowSeconds}s` },
  });
  const label = `${name} (${services} services + ${services} pipes, ${requests}/${windowSeconds} s, ${stepMs / 1000} s per step)`;
  return { stack, services, stepMs, requests, windowSeconds, label };
}
