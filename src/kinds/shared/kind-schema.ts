import type { z } from 'zod';
import type { PolicyFields, DeletionPolicy, ManagedKind, ManagedObject } from '../../managed/index.ts';
import type { ReasonMeaning } from '../../base/reasons.ts';
import { GROUP, VERSION } from './common.ts';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/**
 * Every fact about a kind that is not how it talks to the cloud, stated once: its CRD identity and schemas,
 * its default deletion policy and its relations to other kinds (`references`, `exclusiveOn`). The CRD and
 * install generator reads these alone (it loads no controller); the kind's controller spreads them into the
 * kind the runtime serves.
 */
export interface KindSchema<R extends ManagedObject = ManagedObject> extends Pick<
  ManagedKind<R, unknown>,
  'kind' | 'group' | 'version' | 'plural' | 'defaultDeletionPolicy' | 'references' | 'exclusiveOn'
> {
  singular: string;
  shortNames: string[];
  description: string;
  spec: z.ZodType;
  status: z.ZodType;
  printerColumns: PrinterColumn[];
  /** The fields `spec.fieldPolicy` may name (its schema is made from them): what `sluice export` splits `--field-policy` by. */
  policyFields: PolicyFields;
  /**
   * The reasons only this kind writes, in the terms of the common table (`REASONS`), and what a common
   * reason means for this kind (`means` alone): its page in docs/kinds lists them.
   */
  reasons?: Readonly<Record<string, Partial<ReasonMeaning> & { means: string }>>;
}

/** A spec with the `deletionPolicy` field of `managedSpecFields`, whose default it states. */
type SpecWithDeletionPolicy = z.ZodObject<{
  deletionPolicy: z.ZodDefault<z.ZodEnum<{ [P in DeletionPolicy]: P }>>;
}>;

/**
 * A kind's schema in sluice's API group. The default deletion policy is read from the spec's `deletionPolicy`
 * default, so the CRD (what the apiserver fills in) and the reconciler's fallback cannot disagree.
 */
export function defineKind<R extends ManagedObject>(
  schema: Omit<KindSchema<R>, 'group' | 'version' | 'defaultDeletionPolicy' | 'spec'> & {
    spec: SpecWithDeletionPolicy;
  },
): KindSchema<R> {
  const defaultDeletionPolicy = schema.spec.shape.deletionPolicy.parse(undefined);
  return { ...schema, group: GROUP, version: VERSION, defaultDeletionPolicy };
}
