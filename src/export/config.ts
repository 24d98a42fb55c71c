import { z } from 'zod';
import { ObjectName } from '../kinds/shared/common.ts';
import { cloudAccessFields, clusterName, FLAG_CREDENTIALS } from '../cloud-access/flags.ts';
import type { FieldPolicy } from '../managed/index.ts';
import { anyKindAccepts, POLICIES, type PolicyName } from './field-policy.ts';
import { KINDS } from '../kinds/index.ts';
import { kebab } from '../command-line/flags.ts';

/** The kinds `sluice export` writes: every kind sluice serves. */
const KIND_NAMES = KINDS.map((schema) => schema.kind) as [string, ...string[]];

const TAG_SELECTOR = /^tag:([^=]+)=(.*)$/;
const FIELD_POLICY = new RegExp(`^(${POLICIES.join('|')})=(.+)$`);

/** `sluice export` flags, checked before anything is read so a bad one fails with its name. */
export const ExportConfig = z
  .object({
    ...cloudAccessFields,
    kind: z.array(z.enum(KIND_NAMES)).optional(),
    selector: z.array(z.string().regex(TAG_SELECTOR, { error: 'must be tag:<key>=<value>' })).optional(),
    output: z.enum(['yaml', 'json']).default('yaml'),
    outDir: z.string().optional(),
    observe: z.boolean().default(false),
    fieldPolicy: z
      .array(
        z.string().regex(FIELD_POLICY, {
          error: 'must be createOnly=<field>, reportOnly=<field> or additive=<list>',
        }),
      )
      .optional(),
    ownedBy: clusterName.optional(),
    credentialsRef: ObjectName.optional(),
    includeManaged: z.boolean().default(false),
  })
  .superRefine((config, ctx) => {
    if (config.credentialsSecret && config.organization) {
      ctx.addIssue({
        code: 'custom',
        path: ['organization'],
        message: 'is not allowed with --credentials-secret',
      });
    }
    for (const entry of config.fieldPolicy ?? []) {
      const [, policy, path] = FIELD_POLICY.exec(entry) ?? [];
      if (policy && path && !anyKindAccepts(policy as PolicyName, path)) {
        ctx.addIssue({
          code: 'custom',
          path: ['fieldPolicy'],
          message: `${entry}: no exported kind takes ${path} as ${policy}`,
        });
      }
    }
    // No credentials flag at all: the running operator's credentials Secret is read from the cluster.
    const given = FLAG_CREDENTIALS.filter((field) => config[field] !== undefined);
    if (!config.credentialsSecret && given.length > 0) {
      for (const field of FLAG_CREDENTIALS.filter((f) => config[f] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `is required with --${kebab(given[0]!)}` });
      }
    }
  })
  .transform(({ kind, selector, fieldPolicy, ...config }) => ({
    ...config,
    kinds: new Set<string>(kind ?? KIND_NAMES),
    ...(fieldPolicy ? { fieldPolicy: policyOf(fieldPolicy) } : {}),
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

/** `additive=ipAccessList`, `reportOnly=tags`, … as one policy. */
function policyOf(entries: readonly string[]): FieldPolicy {
  const policy: FieldPolicy = {};
  for (const entry of entries) {
    const [, name, path] = FIELD_POLICY.exec(entry)!;
    (policy[name as PolicyName] ??= []).push(path!);
  }
  return policy;
}
