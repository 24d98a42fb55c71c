import { KINDS } from '../kinds/index.ts';
import type { FieldPolicy, PolicyFields } from '../managed/index.ts';

export const POLICIES = ['createOnly', 'reportOnly', 'additive'] as const;
export type PolicyName = (typeof POLICIES)[number];

const POLICY_FIELDS: Record<string, PolicyFields> = Object.fromEntries(
  KINDS.map((schema) => [schema.kind, schema.policyFields]),
);

/** What a kind accepts under a policy: fields changed in place, or for `additive` its shared lists. */
const accepts = (kind: string, policy: PolicyName, path: string) =>
  policy === 'additive'
    ? POLICY_FIELDS[kind]?.additive[path] !== undefined
    : POLICY_FIELDS[kind]?.paths.includes(path) === true;

/** Whether any exported kind accepts `path` under `policy`: a flag naming none is a mistake. */
export function anyKindAccepts(policy: PolicyName, path: string): boolean {
  return Object.keys(POLICY_FIELDS).some((kind) => accepts(kind as string, policy, path));
}

/**
 * The part of `--field-policy` a manifest of `kind` takes: the fields it has (a Pipe takes
 * `scaling.replicas`, a DatabaseService does not); undefined when none is left.
 */
export function fieldPolicyFor(kind: string, policy: FieldPolicy): FieldPolicy | undefined {
  const taken: FieldPolicy = {};
  for (const name of POLICIES) {
    const paths = (policy[name] ?? []).filter((path) => accepts(kind, name, path));
    if (paths.length > 0) taken[name] = paths;
  }
  return Object.keys(taken).length > 0 ? taken : undefined;
}
