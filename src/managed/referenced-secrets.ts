import type { Logger } from 'pino';
import { objectKey } from '../kube/cache.ts';
import { resolveSecrets, type ResolvedSecrets, type SecretReader } from './secret-references.ts';
import type { DigestKey } from './secret-digests.ts';
import type { StatusDraft } from './status-draft.ts';
import type { ManagedKind, ManagedObject, ManagedStatus } from './types.ts';

export interface ReferencedSecretsOptions<R extends ManagedObject> {
  kind: Pick<ManagedKind<R, unknown>, 'secretReferences'>;
  /** The operator's Secret cache: never a GET per reconcile. */
  secrets: SecretReader;
  /** The key for status digests of referenced Secrets' values (derived from the resource's credentials). */
  secretDigestKey?(resource: R): DigestKey;
  logger: Logger;
}

/** The Secrets a resource's spec references: their values, which of them rotated, and what status keeps. */
export class ReferencedSecrets<R extends ManagedObject> {
  constructor(private readonly options: ReferencedSecretsOptions<R>) {}

  /** `status`: the freshest known, this process's last write when the cache does not show it yet. */
  resolve(resource: R, status: ManagedStatus): ResolvedSecrets {
    const uses = this.options.kind.secretReferences?.(resource) ?? [];
    const { secretDigests: digests, secretVersions: versions } = status;
    const key = uses.length > 0 ? this.options.secretDigestKey?.(resource) : undefined;
    return resolveSecrets(resource, uses, this.options.secrets, { digests, versions }, key);
  }

  /**
   * Status keeps keyed digests of the Secret values the cloud has (never the values), to notice a rotation;
   * the resourceVersion-only record of earlier versions goes once digests replace it. `created`: the create
   * call sent every value.
   */
  record(draft: StatusDraft<R>, secrets: ResolvedSecrets, created = false): void {
    delete draft.status.secretVersions;
    if (!secrets.digests) return void delete draft.status.secretDigests;
    draft.status.secretDigests = secrets.digests;
    for (const { field, why } of created ? [] : secrets.rebaselined) {
      const key = objectKey(draft.resource);
      this.options.logger.info(
        { key, field, why },
        'Secret values taken as what the cloud has; nothing sent',
      );
    }
  }
}
