import { splitKey } from '../kube/cache.ts';
import { ANNOTATIONS, externalIdOf } from './annotations.ts';
import { externalIdUse, judgeIdAccess, type IdAccessVerdict, type PlainIdUse } from './id-access.ts';
import type { ManagedReconcilerOptions } from './reconciler-options.ts';
import type { ResolvedReferences } from './references.ts';
import type { CloudRecords, ManagedKind, ManagedObject } from './types.ts';

/** The condition an object that exists gets when a plain id it uses is no longer granted. */
export const GRANTED_CONDITION = 'Granted';
/** Its reason: the object keeps working (nothing in the cloud is deleted), and says so. */
export const GRANT_WITHDRAWN = 'GrantWithdrawn';

export interface PlainIdGateOptions<R extends ManagedObject> {
  kind: Pick<ManagedKind<R, unknown>, 'kind' | 'plainIds'>;
  access: NonNullable<ManagedReconcilerOptions<R, unknown, unknown>['idAccess']>;
}

/**
 * Keeps an object's plain ids (spec fields and `sluice.dev/external-id`) to the cloud objects its namespace
 * owns, has been granted, or (made outside sluice) is allowed by the administrator: judged before any call.
 */
export class PlainIdGate<R extends ManagedObject> {
  constructor(private readonly options: PlainIdGateOptions<R>) {}

  /**
   * Why `resource` may not reach what its plain ids name, or undefined. `attached`: its cloud object exists
   * (an id in status): what only a create reads is not judged, and a grant the cache shows is taken as it
   * is (the answer is only reported); before that, every grant is read again from the apiserver.
   */
  async judge(
    resource: R,
    records: CloudRecords<R>,
    references: ResolvedReferences,
    attached: boolean,
    operatorCredentials: boolean,
  ): Promise<IdAccessVerdict> {
    const { kind, access } = this.options;
    const externalId = externalIdOf(resource);
    const uses = [
      ...(kind.plainIds?.(resource, references) ?? []),
      ...(externalId ? [externalIdUse(kind.kind, externalId)] : []),
    ].filter((use) => !(attached && use.createOnly));
    const referrer = { namespace: resource.metadata.namespace, kind: kind.kind, operatorCredentials };
    for (const use of uses) {
      const recorded =
        use.field === ANNOTATIONS.externalId
          ? await records.recordedOwner?.(resource, use.id)
          : await records.plainIdOwner?.(resource, use);
      const ownership = { ...(recorded ? { recorded } : {}), holders: this.holders(resource, use) };
      const verdict = await judgeIdAccess(use, ownership, referrer, access, !attached);
      if (verdict) return verdict;
    }
    return undefined;
  }

  /**
   * Why `resource` may not reach what its plain ids name; undefined when it may, or names none (then nothing
   * is read). `operatorCredentials`: it signs in with the operator's credentials, not a Secret of its own.
   */
  refusal(
    resource: R,
    records: CloudRecords<R>,
    references: ResolvedReferences,
    attached: boolean,
    operatorCredentials: boolean,
  ): Promise<IdAccessVerdict> | undefined {
    if (!this.names(resource, references, externalIdOf(resource))) return undefined;
    return this.judge(resource, records, references, attached, operatorCredentials);
  }

  /**
   * Whether `resource` names any plain id at all: only those are judged (and read for). `externalId`: the id
   * its external-id annotation names.
   */
  names(resource: R, references: ResolvedReferences, externalId: string | undefined): boolean {
    return externalId !== undefined || (this.options.kind.plainIds?.(resource, references).length ?? 0) > 0;
  }

  /** The objects of this cluster other than `resource` whose status holds the id. */
  private holders(resource: R, use: PlainIdUse) {
    if (!use.heldBy) return [];
    const self = `${resource.metadata.namespace}/${resource.metadata.name}`;
    return this.options.access
      .holdersOf(use.heldBy, use.id)
      .filter((key) => !(use.heldBy === this.options.kind.kind && key === self))
      .map((key) => {
        const { namespace = '', name } = splitKey(key);
        return { kind: use.heldBy!, namespace, name };
      });
  }
}
