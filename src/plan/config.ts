import { z } from 'zod';
import { cloudAccessFields, clusterName, takeOverFrom, FLAG_CREDENTIALS } from '../cloud-access/flags.ts';
import { kebab } from '../command-line/flags.ts';

/** `sluice plan` flags, checked before anything is read so a bad one fails with its name. */
export const PlanConfig = z
  .object({
    ...cloudAccessFields,
    clusterName: clusterName.optional(),
    takeOverFrom: takeOverFrom.optional(),
    file: z.string().min(1).optional(),
    output: z.enum(['text', 'json']).default('text'),
    prune: z.boolean().default(false),
  })
  .superRefine((config, ctx) => {
    if (config.prune && !config.file) {
      ctx.addIssue({
        code: 'custom',
        path: ['prune'],
        message: 'needs -f: it plans what the input leaves out',
      });
    }
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
