import { z } from 'zod';
import { quota, secretRef } from '../operator/config.ts';
import { EXPORTED_KINDS, type ExportedKind } from './kinds.ts';

const TAG_SELECTOR = /^tag:([^=]+)=(.*)$/;

/** `sluice export` flags, checked before anything is read so a bad one fails with its name. */
export const ExportConfig = z
  .object({
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
    kind: z.array(z.enum(EXPORTED_KINDS)).optional(),
    selector: z.array(z.string().regex(TAG_SELECTOR, { error: 'must be tag:<key>=<value>' })).optional(),
    output: z.enum(['yaml', 'json']).default('yaml'),
    outDir: z.string().optional(),
    observe: z.boolean().default(false),
    managementQuota: quota.default({ requests: 10, windowMs: 10_000 }),
    alertingQuota: quota.default({ requests: 100, windowMs: 60_000 }),
  })
  .superRefine((config, ctx) => {
    if (config.credentialsSecret && config.organization) {
      ctx.addIssue({
        code: 'custom',
        path: ['organization'],
        message: 'is not allowed with --credentials-secret',
      });
    }
    if (!config.credentialsSecret) {
      for (const field of ['organization', 'keyId', 'keySecret', 'managementUrl'] as const) {
        if (!config[field]) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: 'is required without --credentials-secret',
          });
        }
      }
    }
  })
  .transform(({ kind, selector, ...config }) => ({
    ...config,
    kinds: new Set<ExportedKind>(kind ?? EXPORTED_KINDS),
    ...(selector
      ? {
          tags: selector.map((text) => {
            const [, key, value] = TAG_SELECTOR.exec(text)!;
            return { key: key!, value: value! };
          }),
        }
      : {}),
  }));
export type ExportConfig = z.output<typeof ExportConfig>;
