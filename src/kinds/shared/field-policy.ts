import { z } from 'zod';
import type { PolicyFields } from '../../managed/index.ts';
import { withRules, type CelRule } from './meta.ts';

/** sluice's own settings: no cloud field, so nothing a policy could leave to the cloud. */
const OWN_FIELDS = [
  'deletionPolicy',
  'managementPolicy',
  'credentialsRef',
  'operatorCredentials',
  'connectionSecret',
  'credentialsSecret',
  'passwordSecretRef',
  'fieldPolicy',
];

/** Bounds the lists so that the admission rules that walk them stay within the apiserver's cost budget. */
const MAX_POLICY_PATHS = 64;

/**
 * What a policy may name in a spec: every field of its object schema by dotted path (a list or a map is one
 * field), except sluice's own settings; `fixed` (and what lies under them, `except` aside) are the fields
 * the cloud fixes at creation, `unread` (and what lies under them) those whose cloud value sluice never
 * reads: a policy is refused on both.
 */
export function policyFields(
  spec: z.ZodObject,
  {
    fixed,
    except = [],
    unread = [],
    additive = {},
  }: {
    fixed: readonly string[];
    except?: readonly string[];
    unread?: readonly string[];
    additive?: Record<string, string>;
  },
): PolicyFields {
  const all = objectPaths(spec).filter((path) => !OWN_FIELDS.includes(path.split('.')[0]!));
  const under = (path: string, field: string) => path === field || path.startsWith(`${field}.`);
  const isFixed = (path: string) => fixed.some((f) => under(path, f)) && !except.some((e) => under(path, e));
  const isUnread = (path: string) => unread.some((field) => under(path, field));
  return {
    paths: all.filter((p) => !isFixed(p) && !isUnread(p)),
    fixed: all.filter(isFixed),
    ...(unread.length > 0 ? { unread: all.filter(isUnread) } : {}),
    additive,
  };
}

/** The dotted paths of an object schema's fields, nested objects' fields included. */
function objectPaths(schema: z.ZodType, prefix = ''): string[] {
  const object = unwrap(schema);
  if (!(object instanceof z.ZodObject)) return [];
  return Object.entries(object.shape as Record<string, z.ZodType>).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...objectPaths(child, path)];
  });
}

function unwrap(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault)
    return unwrap(schema.unwrap() as z.ZodType);
  return schema;
}

const celList = (paths: readonly string[]) => `[${paths.map((p) => `'${p}'`).join(', ')}]`;

/**
 * Why a path is refused in one of the policy's lists: it is not among `allowed`, or it is among `refused`.
 * One message per path, the same at admission and in `sluice plan`.
 */
interface Refusal {
  allowed?: readonly string[];
  refused?: readonly string[];
  message: (path: string) => string;
}

function refusals(kind: string, fields: PolicyFields, list: PolicyList): Refusal[] {
  const where = `spec.fieldPolicy.${list}`;
  if (list === 'additive') {
    const lists = Object.keys(fields.additive);
    const takes = lists.length > 0 ? `additive takes ${lists.join(', ')}` : `${kind} has none`;
    return [{ allowed: lists, message: (p) => `${where}: ${p} is not a list others add to (${takes})` }];
  }
  return [
    {
      allowed: [...fields.paths, ...fields.fixed, ...(fields.unread ?? [])],
      message: (p) => `${where}: ${p} is not a field of ${kind}`,
    },
    // A kind the cloud fixes nothing of gets no rule that could never refuse.
    ...(fields.fixed.length === 0
      ? []
      : [
          {
            refused: fields.fixed,
            message: (p: string) =>
              `${where}: ${p} is fixed when the cloud creates the ${kind}: a policy on it would mean nothing`,
          },
        ]),
    ...(fields.unread?.length
      ? [
          {
            refused: fields.unread,
            message: (p: string) =>
              `${where}: ${p} is never read back from the cloud: sluice can neither keep nor report its value there`,
          },
        ]
      : []),
  ];
}

const refuses = ({ allowed, refused }: Refusal, path: string) =>
  (allowed !== undefined && !allowed.includes(path)) || (refused?.includes(path) ?? false);

/** The CEL rule of a refusal over a list `self`. */
function celRule({ allowed, refused, message }: Refusal): CelRule {
  const test = allowed ? `p in ${celList(allowed)}` : `!(p in ${celList(refused ?? [])})`;
  return {
    rule: `self.all(p, ${test})`,
    message: message('a path'),
    messageExpression: celMessage(message, `self.filter(p, !(${test}))[0]`),
  };
}

type PolicyList = 'createOnly' | 'reportOnly' | 'additive';

/**
 * `spec.fieldPolicy` of a kind: which fields are left to the cloud after create, reported only, or shared
 * lists. Admission refuses (by CEL rules) and `sluice plan` refuses (by the same checks in zod) a path the
 * kind does not have, a field the cloud fixes at creation, and a field given two policies.
 */
export function fieldPolicySchema(kind: string, fields: PolicyFields) {
  const list = (name: PolicyList, description: string) => {
    const rules = refusals(kind, fields, name).map(celRule);
    return withRules(
      z
        .array(
          z
            .string()
            .min(1)
            .max(253)
            .describe('A field of the spec, dotted for nested fields (scaling.replicas).'),
        )
        .max(MAX_POLICY_PATHS)
        .optional()
        .describe(description),
      ...rules,
    );
  };
  const pairs = [
    ['createOnly', 'reportOnly'],
    ['createOnly', 'additive'],
    ['reportOnly', 'additive'],
  ] as const;
  return withRules(
    z
      .object({
        createOnly: list('createOnly', 'Fields sent in the create; afterwards the cloud’s value stands.'),
        reportOnly: list(
          'reportOnly',
          'Fields whose differences are shown in status.drift and never corrected.',
        ),
        additive: list(
          'additive',
          `Lists whose entries sluice enforces while leaving entries others add alone${
            Object.keys(fields.additive).length > 0 ? `: ${Object.keys(fields.additive).join(', ')}` : ''
          }. An entry sluice set and the spec no longer holds is removed.`,
        ),
      })
      .superRefine((policy, context) => {
        for (const name of ['createOnly', 'reportOnly', 'additive'] as const) {
          for (const [index, path] of (policy[name] ?? []).entries()) {
            const refused = refusals(kind, fields, name).find((refusal) => refuses(refusal, path));
            if (refused)
              context.addIssue({ code: 'custom', path: [name, index], message: refused.message(path) });
          }
        }
        for (const [a, b] of pairs) {
          const both = (policy[a] ?? []).find((path) => (policy[b] ?? []).includes(path));
          if (both) context.addIssue({ code: 'custom', path: [b], message: onePolicy(both) });
        }
      })
      .optional()
      .describe(
        'Who owns which field after create. A field not named here is enforced: sluice corrects any difference.',
      ),
    ...pairs.map(([a, b]) => ({
      rule: `!has(self.${a}) || !has(self.${b}) || self.${a}.all(p, !(p in self.${b}))`,
      message: onePolicy('a field'),
      messageExpression: celMessage(onePolicy, `self.${a}.filter(p, p in self.${b})[0]`),
    })),
  );
}

/** A CEL string expression of `message`, with `expression` (the offending path) in its place. */
function celMessage(message: (path: string) => string, expression: string): string {
  const [before, after] = message('\u0000').split('\u0000');
  return `'${before}' + ${expression} + '${after}'`;
}

const onePolicy = (path: string) => `spec.fieldPolicy: ${path} has two policies; give it one`;
