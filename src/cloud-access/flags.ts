import { z } from 'zod';
import { DURATION_BOUNDS, durationProblem, tryParseDurationMs } from '../base/duration.ts';
import { CLUSTER_NAME, MAX_CLUSTER_NAME } from '../managed/index.ts';

/** `--credentials-secret`: `<namespace>/<name>`. */
export const secretRef = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, {
    error: 'must be <namespace>/<name>',
  })
  .transform((text) => {
    const [namespace, name] = text.split('/') as [string, string];
    return { namespace, name };
  });

/** `a,b`: a comma-separated list of at least one item, each checked by `problemOf`. */
export const commaList = (problemOf: (item: string) => string | undefined, omitted: string) =>
  z.string().transform((text, ctx) => {
    const items = text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    if (items.length === 0) ctx.addIssue({ code: 'custom', message: `must name at least one (${omitted})` });
    for (const problem of items.map(problemOf).filter((p) => p !== undefined)) {
      ctx.addIssue({ code: 'custom', message: problem });
    }
    return items;
  });

/** `10/10s` → at most 10 requests in any 10 s; `off` sends unthrottled (only for a cloud without limits). */
export const quota = z.string().transform((text, ctx) => {
  if (text === 'off') return false as const;
  const match = /^(\d+)\/(.+)$/.exec(text);
  const requests = Number(match?.[1]);
  if (!match || !(requests >= 1)) {
    ctx.addIssue({
      code: 'custom',
      message: `must be <requests>/<duration> (like 10/10s) or off (got "${text}")`,
    });
    return z.NEVER;
  }
  const windowProblem = durationProblem(match[2]!, DURATION_BOUNDS.quotaWindow);
  if (windowProblem !== undefined) {
    ctx.addIssue({ code: 'custom', message: `its window ${windowProblem}` });
    return z.NEVER;
  }
  const windowMs = tryParseDurationMs(match[2]!)!;
  return { requests, windowMs };
});

/** `--cluster-name`: a DNS label, recorded in the cloud as the owner of every object this cluster makes. */
export const clusterName = z
  .string()
  .max(MAX_CLUSTER_NAME)
  .regex(CLUSTER_NAME, { error: 'must be a DNS label: lower-case letters, digits and -, at most 63' });

/**
 * `--take-over-from`: the other clusters whose cloud objects the administrator lets this operator take over
 * (an object names one with `sluice.dev/owner-cluster`, or adopts by id what one recorded).
 */
export const takeOverFrom = commaList(
  (name) =>
    name.length <= MAX_CLUSTER_NAME && CLUSTER_NAME.test(name)
      ? undefined
      : `"${name}" is no cluster name (a DNS label: lower-case letters, digits and -, at most 63)`,
  "omit the flag to take over no other cluster's objects",
);

/** The config fields of `addCloudAccessOptions`' flags, for a command's schema to spread. */
export const cloudAccessFields = {
  kubeconfig: z.string().optional(),
  credentialsSecret: secretRef.optional(),
  organization: z.uuid().optional(),
  keyId: z.string().min(1).optional(),
  keySecret: z.string().min(1).optional(),
  managementUrl: z.url().optional(),
  alertsUrl: z.url().optional(),
  alertsToken: z.string().min(1).optional(),
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { error: 'must be a namespace name' })
    .optional(),
  managementQuota: quota.default({ requests: 10, windowMs: 10_000 }),
  alertingQuota: quota.default({ requests: 100, windowMs: 60_000 }),
};

/** The flags that together stand in for a credentials Secret. */
export const FLAG_CREDENTIALS = ['organization', 'keyId', 'keySecret', 'managementUrl'] as const;
