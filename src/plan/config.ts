import { z } from 'zod';
import { quota, secretRef } from '../operator/config.ts';

const FLAG_CREDENTIALS = ['organization', 'keyId', 'keySecret', 'managementUrl'] as const;

/** `sluice plan` flags, checked before anything is read so a bad one fails with its name. */
export const PlanConfig = z
  .object({
    file: z.string().min(1).optional(),
    kubeconfig: z.string().optional(),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { error: 'must be a namespace name' })
      .optional(),
    credentialsSecret: secretRef.optional(),
    organization: z.uuid().optional(),
    keyId: z.string().min(1).optional(),
    keySecret: z.string().min(1).optional(),
    managementUrl: z.url().optional(),
    alertsUrl: z.url().optional(),
    alertsToken: z.string().min(1).optional(),
    output: z.enum(['text', 'json']).default('text'),
    managementQuota: quota.default({ requests: 10, windowMs: 10_000 }),
    alertingQuota: quota.default({ requests: 100, windowMs: 60_000 }),
  })
  .superRefine((config, ctx) => {
    const given = FLAG_CREDENTIALS.filter((field) => config[field] !== undefined);
    if (given.length === 0) return;
    if (config.credentialsSecret) {
      ctx.addIssue({
        code: 'custom',
        path: [given[0]!],
        message: 'is not allowed with --credentials-secret',
      });
      return;
    }
    for (const field of FLAG_CREDENTIALS.filter((f) => config[f] === undefined)) {
      ctx.addIssue({ code: 'custom', path: [field], message: `is required with --${kebab(given[0]!)}` });
    }
  });
export type PlanConfig = z.output<typeof PlanConfig>;

export const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
