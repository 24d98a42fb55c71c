import { RETRY_DELAYS } from '../base/retry-delays.ts';
import { REASON } from '../base/reasons.ts';
import { ReconcileError } from './errors.ts';
import type { CredentialsRead } from './credentials-read.ts';
import type { ManagedReconcilerOptions } from './reconciler-options.ts';
import type { ManagedObject, ManagedStatus } from './types.ts';

/** The organization an object's cloud id lives in, as status records it. */
export const ORGANIZATION_FIELD = 'organizationId';

/**
 * What an object's credentials must be before any cloud call: of the organization its cloud id lives in (a
 * Secret swapped for another organization's key would find nothing there, and a create or a "gone" would
 * follow), and, for a kind that makes credentials, no key such a kind makes. The organization is pinned in
 * status once the object has an id. Both are asked of the credentials as the reconcile read them, once.
 */
export class CredentialsChecks<R extends ManagedObject> {
  constructor(
    private readonly options: Pick<ManagedReconcilerOptions<R, unknown, unknown>, 'credentialsMadeBy'> & {
      kind: { kind: string; makesCredentials?: unknown };
    },
  ) {}

  /** Why the object may not call the cloud with `credentials` (its own, as read), or undefined. */
  refusal(resource: R, credentials: CredentialsRead | undefined): ReconcileError | undefined {
    const { kind, credentialsMadeBy } = this.options;
    const named = resource.spec.credentialsRef?.name;
    const maker = kind.makesCredentials && named && credentialsMadeBy?.(resource.metadata.namespace, named);
    if (maker) {
      return ReconcileError.terminal(
        REASON.CredentialsManagedKey,
        `spec.credentialsRef names Secret ${named}, which holds the key ${maker} makes: a ${kind.kind} never signs in with a key a ${kind.kind} makes; name a Secret with another key, or leave spec.credentialsRef out for the operator's credentials`,
        RETRY_DELAYS.credentials,
      );
    }
    const pinned = resource.status?.[ORGANIZATION_FIELD];
    const now = credentials?.organization;
    if (typeof pinned !== 'string' || now === undefined || now === pinned) return undefined;
    const id = resource.status?.id ?? 'its cloud object';
    return ReconcileError.terminal(
      REASON.OrganizationChanged,
      `${kind.kind} ${id} lives in organization ${pinned} (status.${ORGANIZATION_FIELD}), but the credentials it uses now are of organization ${now}: nothing is read, created or deleted under them until they are of ${pinned} again`,
      RETRY_DELAYS.credentials,
    );
  }

  /** The organization the object's cloud id lives in, for status: its `credentials`', once it has an `id`. */
  pinned(id: string | undefined, credentials: CredentialsRead | undefined): ManagedStatus {
    const organization = credentials?.organization;
    return id !== undefined && organization !== undefined ? { [ORGANIZATION_FIELD]: organization } : {};
  }
}
