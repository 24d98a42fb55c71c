import { ANNOTATIONS, externalIdOf } from './annotations.ts';
import { RETRY_DELAYS } from '../retry-delays.ts';
import { ReconcileError } from './errors.ts';
import type { EventRecorder } from './events.ts';
import { assertControlledBy, type KubeWriter } from './kube-writer.ts';
import { isObserveOnly } from './observe-only.ts';
import type { SecretReader, SecretSnapshot } from './secret-references.ts';
import type { StatusDraft } from './status-draft.ts';
import type { ConnectionDetails, ExternalClient, ManagedKind, ManagedObject, Observation } from './types.ts';

/** The connection Secret as the cache holds it, or as the apiserver answered (no version then). */
type ConnectionSecret = Pick<SecretSnapshot, 'data'> & Partial<SecretSnapshot>;

/** The longest reset annotation value status can record (its schema's bound). */
const MAX_RESET_VALUE_LENGTH = 1024;

export interface ConnectionPublisherOptions<R extends ManagedObject> {
  connectionSecret: NonNullable<ManagedKind<R, unknown>['connectionSecret']>;
  writer: KubeWriter;
  events: EventRecorder;
  /** The operator's Secret cache (with owners): connection Secrets are never read with a GET per reconcile. */
  secrets: SecretReader;
}

/**
 * Keeps a resource's connection Secret: the values a create returns, the hosts and ports that follow the
 * cloud, and the secret values (a password) recovered only on proof or on request. One per kind that has
 * a connection Secret; the reconciler hands it what it observed.
 */
export class ConnectionPublisher<R extends ManagedObject> {
  constructor(private readonly options: ConnectionPublisherOptions<R>) {}

  /**
   * The connection Secret as the cache holds it; a Secret this resource does not control is a
   * `SecretConflict`. Read before a create: a password that could not be stored would be lost.
   */
  current(resource: R): ConnectionSecret | undefined {
    const name = this.name(resource);
    const secret = this.options.secrets.get(resource.metadata.namespace, name);
    if (secret) assertControlledBy({ metadata: { name, ownerReferences: secret.ownerReferences } }, resource);
    return secret;
  }

  /**
   * Writes `values` into the Secret as last read (`current`), with the keys the kind derives from all the
   * details (kept and new: a template over host and password); a stale read costs a retry, not a loss.
   */
  async publish(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): Promise<void> {
    await this.write(resource, this.withDerived(resource, values, current), current);
  }

  /**
   * Keeps the connection Secret complete: follows the cloud's hosts, and gets new secret values (a password
   * reset) when the user asks with the reset annotation, or when sluice knew them and a live read confirms
   * the Secret lost them. An adopted resource's values were never known to sluice: resetting them unasked
   * would break every client using them, so they stay unknown (`status.unknownConnectionKeys`) until asked.
   * Returns what an object sluice only observes was asked for and did not do, for its status to say.
   */
  async sync(
    resource: R,
    external: ExternalClient<R, unknown>,
    id: string,
    observation: Extract<Observation<unknown>, { exists: true }>,
    draft: StatusDraft<R>,
  ): Promise<string | undefined> {
    const { connectionSecret, events, writer } = this.options;
    let current = this.current(resource);
    const values = { ...observation.connectionDetails };
    const lacking = (from: ConnectionSecret | undefined) =>
      connectionSecret.requiredKeys.filter((key) => !from?.data[key] && !values[key]);
    const resetAsked = this.resetAsked(resource);
    const adopted = externalIdOf(resource) !== undefined || draft.status.adopted === true;
    let missing = lacking(current);
    if (missing.length > 0 && resetAsked === undefined && !adopted) {
      // A cache that lags (or has not synced) must not cost a password: only the apiserver's word counts.
      const live = await writer.readConnectionSecret(resource, this.name(resource));
      current = live && { data: live };
      missing = lacking(current);
    }
    // A password reset is a write to the cloud: an object sluice only observes never sends one. An asked
    // reset runs against its clients that record writes, so status lists the call Full would send; it
    // answers nothing, and nothing is stored or recorded as done.
    const observeOnly = isObserveOnly(resource);
    const withheld = observeOnly ? await this.withheldReset(resource, external, id, resetAsked) : undefined;
    const recover = observeOnly ? undefined : external.recoverConnectionDetails?.bind(external);
    if (recover && (resetAsked !== undefined || (missing.length > 0 && !adopted))) {
      Object.assign(values, await recover(resource, id));
      const [reason, message] =
        resetAsked === undefined
          ? ['ConnectionDetailsRecovered', `restored ${missing.join(', ')} in Secret ${this.name(resource)}`]
          : [
              'PasswordReset',
              `reset as asked by ${ANNOTATIONS.resetPassword}, into Secret ${this.name(resource)}`,
            ];
      events.record(resource, 'Normal', reason, message);
    }
    const next = this.withDerived(resource, values, current);
    if (Object.entries(next).some(([key, value]) => current?.data[key] !== value)) {
      await this.write(resource, next, current);
    }
    // Recorded only once the new values are stored: a failed write asks again.
    if (resetAsked !== undefined && recover) draft.status.passwordReset = resetAsked;
    const unknown = lacking(current);
    if (unknown.length > 0) draft.status.unknownConnectionKeys = unknown;
    else delete draft.status.unknownConnectionKeys;
    return withheld;
  }

  /** Under Observe: the reset asked for is only recorded (see `sync`); what status says of it. */
  private async withheldReset(
    resource: R,
    external: ExternalClient<R, unknown>,
    id: string,
    resetAsked: string | undefined,
  ): Promise<string | undefined> {
    if (resetAsked === undefined || !external.recoverConnectionDetails) return undefined;
    await external.recoverConnectionDetails(resource, id);
    return `${ANNOTATIONS.resetPassword} asks for a password reset, which managementPolicy Observe never makes`;
  }

  /** A Ready resource whose secret values are unknown says so in Ready, and how to get them. */
  noteUnknownKeys(resource: R, draft: StatusDraft<R>): void {
    const unknown = draft.status.unknownConnectionKeys;
    const ready = draft.condition('Ready');
    if (!Array.isArray(unknown) || ready?.status !== 'True') return;
    draft.setCondition({
      type: 'Ready',
      status: 'True',
      reason: ready.reason,
      message:
        `Secret ${this.name(resource)} has no ${unknown.join(', ')}: adopted without a reset, so unknown to ` +
        `sluice; set the annotation ${ANNOTATIONS.resetPassword} to a new value to reset it`,
    });
  }

  /** `values` with the further keys the kind computes from every detail, kept and new (a template). */
  private withDerived(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): ConnectionDetails {
    const derived = this.options.connectionSecret.derive?.(resource, { ...current?.data, ...values });
    return { ...values, ...derived };
  }

  private async write(
    resource: R,
    values: ConnectionDetails,
    current: ConnectionSecret | undefined,
  ): Promise<void> {
    const exists = current !== undefined;
    await this.options.writer.writeConnectionSecret(
      resource,
      this.name(resource),
      values,
      exists,
      current?.resourceVersion,
    );
  }

  private name(resource: R): string {
    return this.options.connectionSecret.name(resource);
  }

  /** The reset annotation's value when it is one not acted on yet. */
  private resetAsked(resource: R): string | undefined {
    const asked = resource.metadata.annotations?.[ANNOTATIONS.resetPassword];
    if (asked !== undefined && asked.length > MAX_RESET_VALUE_LENGTH) {
      const message = `annotation ${ANNOTATIONS.resetPassword} is longer than ${MAX_RESET_VALUE_LENGTH} characters`;
      throw new ReconcileError('InvalidAnnotation', message, RETRY_DELAYS.userAction);
    }
    return asked !== undefined && asked !== resource.status?.passwordReset ? asked : undefined;
  }
}
