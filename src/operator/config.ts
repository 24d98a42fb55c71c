import { z } from 'zod';
import {
  DURATION_BOUNDS,
  durationProblem,
  tryParseDurationMs,
  type DurationBounds,
} from '../base/duration.ts';
import { REAL_TIMINGS, scaleMs, timeScaleProblem } from '../base/timings.ts';
import { parseBindAddress } from '../kube/health-and-metrics-servers.ts';
import { clusterName, commaList, quota, secretRef, takeOverFrom } from '../cloud-access/flags.ts';
import { allowedHostProblem } from '../cloud-access/api-hosts.ts';

/** A duration flag: refused with the accepted range when outside it, so no timer is ever armed with it. */
const duration = (bounds: DurationBounds) =>
  z.string().transform((text, ctx) => {
    const problem = durationProblem(text, bounds);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    return problem === undefined ? tryParseDurationMs(text)! : z.NEVER;
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

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** `sluice run` options, validated once at start-up so a bad flag fails with its name before anything runs. */

/** `--time-scale`: how many times faster than real time the built-in waits run (tests; 1 in production). */
const timeScale = z.union([z.number(), z.string()]).transform((given, ctx) => {
  const factor = typeof given === 'number' ? given : given.trim() === '' ? NaN : Number(given);
  const problem = timeScaleProblem(factor, String(given));
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  return problem === undefined ? factor : z.NEVER;
});

/**
 * The flags as given. A duration left out takes its real default divided by `--time-scale`
 * (`OperatorConfig`), so a test compresses the operator's time without restating each flag.
 */
export const OperatorFlagFields = z.object({
  kubeconfig: z.string().optional(),
  clusterName: clusterName.optional(),
  takeOverFrom: takeOverFrom.optional(),
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(,[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
      error: 'must be a namespace or a comma-separated list of namespaces',
    })
    .optional(),
  credentialsSecret: secretRef.optional(),
  operatorCredentialsNamespaces: commaList(
    (name) => (DNS_LABEL.test(name) && name.length <= 63 ? undefined : `"${name}" is no namespace name`),
    'omit the flag to let every namespace use the operator credentials',
  ).optional(),
  allowedApiHosts: commaList(
    (entry) => allowedHostProblem(entry.toLowerCase()),
    "omit the flag to allow the hosts of the operator's credentials",
  ).optional(),
  concurrency: z.coerce.number().int().min(1).max(64).default(8),
  timeScale: timeScale.default(1),
  syncInterval: duration(DURATION_BOUNDS.syncInterval).optional(),
  pollInterval: duration(DURATION_BOUNDS.pollInterval).optional(),
  leaderElect: z.boolean().default(false),
  leaderElectionNamespace: z.string().default('default'),
  leaderElectionId: z.string().default('sluice-operator'),
  metricsBindAddress: bindAddress.default(':8080'),
  healthProbeBindAddress: bindAddress.default(':8081'),
  managementQuota: quota.optional(),
  alertingQuota: quota.optional(),
  maxCloudWait: duration(DURATION_BOUNDS.maxCloudWait).default(1_000),
  gracefulShutdownTimeout: duration(DURATION_BOUNDS.gracefulShutdownTimeout).default(10_000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
});

/** `sluice run`'s configuration: the flags, with each duration left out at its real default on the time scale. */
export const OperatorConfig = OperatorFlagFields.transform((flags) => {
  const scaled = (ms: number) => scaleMs(ms, flags.timeScale);
  return {
    ...flags,
    syncInterval: flags.syncInterval ?? scaled(REAL_TIMINGS.syncIntervalMs),
    pollInterval: flags.pollInterval ?? scaled(REAL_TIMINGS.pollIntervalMs),
    managementQuota: flags.managementQuota ?? {
      requests: 10,
      windowMs: scaled(REAL_TIMINGS.managementQuotaWindowMs),
    },
    alertingQuota: flags.alertingQuota ?? {
      requests: 100,
      windowMs: scaled(REAL_TIMINGS.alertingQuotaWindowMs),
    },
  };
});
export type OperatorConfig = z.output<typeof OperatorConfig>;
export type OperatorFlags = z.input<typeof OperatorConfig>;
