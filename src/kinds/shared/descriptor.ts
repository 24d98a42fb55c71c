import type { z } from 'zod';
import type {
  DeletionPolicy,
  DriftRead,
  ManagedKind,
  ManagedObject,
  PolicyFields,
} from '../../managed/index.ts';
import type { KindReasons } from '../../base/reasons.ts';
import { GROUP, VERSION } from './common.ts';
import { connectionSecretOf, type ConnectionSecretStatement } from './connection-secret.ts';
import type { HealthCase } from './health-cases.ts';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/**
 * A kind, stated once in its folder (`src/kinds/<kind>/kind.ts`) and listed once in the registry
 * (`src/kinds/index.ts`): its CRD identity and schemas, its reasons, its relations to other kinds and what the
 * runtime reads of its objects (Secrets, plain ids, drift reads). Every table (CRDs, RBAC, Argo CD health
 * checks, the docs' reasons) is built from these. What talks to the cloud (the controller, the export step)
 * is loaded on demand, so `npm run generate` loads neither a controller nor a cloud client. What the loaders
 * give, a `KindController` (src/kinds/shared/sluice-kind.ts) and a `KindExport` (export-step.ts), is typed
 * where it is written; naming those types here would load the cloud clients' types with the registry.
 */
export interface KindDescriptor<R extends ManagedObject = ManagedObject> extends Omit<
  ManagedKind<R, unknown>,
  'connect' | 'driftReads' | 'policyFields'
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
   * reason means for this kind (`means` alone): its page in docs/kinds lists them, the runtime reads which
   * make an object Stalled. Its `reasons.ts` states them; its code raises one only by the names
   * `reasonNames` gives them.
   */
  reasons?: KindReasons;
  /**
   * The Argo CD health (and kstatus) fixtures only this kind's code leads to, beside those every kind can be
   * in (src/install/argocd-fixtures.ts): generated under deploy/argocd and run by the install tests.
   */
  healthCases?: readonly HealthCase[];
  /** What a drift check of an object reads, by the cloud's two APIs (cloud-access's `CloudApi`). */
  driftReads?(resource: R): readonly DriftRead<'management' | 'alerting'>[];
  /** The kind's cloud client, loaded on first use: only the operator and `sluice plan` ask for it. */
  controller(): Promise<unknown>;
  /** How `sluice export` reads the kind's cloud objects and writes their manifests, loaded by the export. */
  exportStep(): Promise<unknown>;
}

/** A spec with the `deletionPolicy` field of `managedSpecFields`, whose default it states. */
type SpecWithDeletionPolicy = z.ZodObject<{
  deletionPolicy: z.ZodDefault<z.ZodEnum<{ [P in DeletionPolicy]: P }>>;
}>;

/**
 * A kind in sluice's API group. The default deletion policy is read from the spec's `deletionPolicy` default,
 * so the CRD (what the apiserver fills in) and the reconciler's fallback cannot disagree.
 */
export function defineKind<R extends ManagedObject>(
  kind: Omit<
    KindDescriptor<R>,
    'group' | 'version' | 'defaultDeletionPolicy' | 'spec' | 'connectionSecret'
  > & {
    spec: SpecWithDeletionPolicy;
    /** The kind's connection Secret, stated as data (`connectionSecretOf` names and renders it). */
    connectionSecret?: ConnectionSecretStatement;
  },
): KindDescriptor<R> {
  const { connectionSecret, ...rest } = kind;
  const defaultDeletionPolicy = kind.spec.shape.deletionPolicy.parse(undefined);
  return {
    ...rest,
    ...(connectionSecret ? { connectionSecret: connectionSecretOf<R>(connectionSecret) } : {}),
    group: GROUP,
    version: VERSION,
    defaultDeletionPolicy,
  };
}
