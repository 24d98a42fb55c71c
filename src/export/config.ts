import { z } from 'zod';
import { cloudAccessFields, FLAG_CREDENTIALS } from '../operator/cloud-access-config.ts';
import { clusterName } from '../operator/config.ts';
import { EXPORTED_KINDS, type ExportedKind } from './kinds.ts';

const TAG_SELECTOR = /^tag:([^=]+)=(.*)$/;

/** `sluice export` flags, checked before anything is read so a bad one fails with its name. */
export const ExportConfig = z
  .object({
    ...cloudAccessFields,
    kind: z.array(z.enum(EXPORTED_KINDS)).optional(),
    selector: z.array(z.string().regex(TAG_SELECTOR, { error: 'must be tag:<key>=<value>' })).optional(),
    output: z.enum(['yaml', 'json']).default('yaml'),
    outDir: z.string().optional(),
    observe: z.boolean().default(false),
    ownedBy: clusterName.optional(),
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
      for (const field of FLAG_CREDENTIALS) {
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
