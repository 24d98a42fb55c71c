import { z } from 'zod';
import { DURATION_HINT, tryParseDurationMs } from '../runtime/duration.ts';
import { parseBindAddress } from '../runtime/health-and-metrics-servers.ts';

const duration = z.string().transform((text, ctx) => {
  const ms = tryParseDurationMs(text);
  if (ms === undefined) ctx.addIssue({ code: 'custom', message: `${DURATION_HINT} (got "${text}")` });
  return ms ?? z.NEVER;
});

const bindAddress = z.string().refine(
  (text) => {
    try {
      parseBindAddress(text);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'must be host:port, :port or 0 (off)' },
);

export const secretRef = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
    error: 'must be <namespace>/<name>',
  })
  .transform((text) => {
    const [namespace, name] = text.split('/') as [string, string];
    return { namespace, name };
  });

/** `10/10s` → at most 10 requests in any 10 s; `off` sends unthrottled (only for a cloud without limits). */
export const quota = z.string().transform((text, ctx) => {
  if (text === 'off') return false as const;
  const match = /^(\d+)\/(.+)$/.exec(text);
  const windowMs = match ? tryParseDurationMs(match[2]!) : undefined;
  const requests = Number(match?.[1]);
  if (windowMs === undefined || !(requests >= 1)) {
    ctx.addIssue({
      code: 'custom',
      message: `must be <requests>/<duration> (like 10/10s) or off (got "${text}")`,
    });
    return z.NEVER;
  }
  return { requests, windowMs };
});

/** `sluice run` options, validated once at start-up so a bad flag fails with its name before anything runs. */
export const OperatorConfig = z.object({
  kubeconfig: z.string().optional(),
  namespace: z.string().optional(),
  credentialsSecret: secretRef.optional(),
  concurrency: z.coerce.number().int().min(1).max(64).default(8),
  syncInterval: duration.default(10 * 60_000),
  pollInterval: duration.default(2_000),
  leaderElect: z.boolean().default(false),
  leaderElectionNamespace: z.string().default('default'),
  leaderElectionId: z.string().default('sluice-operator'),
  metricsBindAddress: bindAddress.default(':8080'),
  healthProbeBindAddress: bindAddress.default(':8081'),
  managementQuota: quota.default({ requests: 10, windowMs: 10_000 }),
  alertingQuota: quota.default({ requests: 100, windowMs: 60_000 }),
  maxCloudWait: duration.default(1_000),
  gracefulShutdownTimeout: duration.default(10_000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});
export type OperatorConfig = z.output<typeof OperatorConfig>;
export type OperatorFlags = z.input<typeof OperatorConfig>;
