import { z } from 'zod';
import { quota, secretRef } from '../operator/config.ts';

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
