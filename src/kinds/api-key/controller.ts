import { NEXT_KEY_ID, NEXT_KEY_SECRET, type ApiKey } from './schema.ts';
import { API_KEY_REASON } from './reasons.ts';
import type { ApiKeyUpdateBody } from '../../cloud/management-client.ts';
import { newKeyIdentity } from '../../cloud/api-key-hash.ts';
import { ApiError } from '../../cloud/errors.ts';
import {
  ReconcileError,
  type ConnectContext,
  type ConnectionDetails,
  type LostCreate,
  type OwnedCandidate,
  type Owner,
  isObserveOnly,
  type CloudRecords,
  type CreatePreparation,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { apiKeyCreateBody, apiKeyStatus, apiKeyUpdateBody, diffApiKey, observedSpec } from './mapping.ts';
import { gracePeriodMs, planRotation, rotationAsked, type RotationStep } from './rotation.ts';
import { cloudKeyName, isRecordedFor, unmarkedName } from './owner-mark.ts';
import type { ApiKey as CloudKey } from '../../cloud/schemas/api-key.ts';
import type { KeyIdentity } from '../../cloud/api-key-hash.ts';
import { createdSince, ignoreNotFound } from '../shared/cloud-calls.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';

/** What `update` does: the PATCH of the fields that differ, and the rotation's step that changes the cloud. */
export interface ApiKeyPlan {
  patch: ApiKeyUpdateBody;
  rotation: RotationStep;
}

/** The names a rotation's cloud steps go by in `differences` (Events, `Ready` while they run). */
const ROTATION_CHANGES: Partial<Record<RotationStep['step'], string>> = {
  create: 'a rotated key',
  deletePrevious: 'the deletion of the previous key',
};

/** The ApiKey controller: its cloud client, loaded by the registry only when the kind runs. */
export const apiKeyController: KindController<ApiKey, ApiKeyPlan> = {
  connect: (_resource, { cloud, claimedBy, connectionSecret, owner }) =>
    connectionOf(new ApiKeyClient(cloud, claimedBy, connectionSecret, owner)),
};

/**
 * A management key made from a secret sluice makes: the Secret holds the key id and secret before the
 * create sends their hashes, so no key exists whose secret is not in the Secret.
 */
class ApiKeyClient
  implements ExternalClient<ApiKey, ApiKeyPlan>, CloudRecords<ApiKey>, CreatePreparation<ApiKey>
{
  constructor(
    private readonly cloud: CloudConnection,
    private readonly claimedBy: ConnectContext<CloudConnection>['claimedBy'],
    private readonly stored: ConnectContext<CloudConnection>['connectionSecret'],
    private readonly owner: Owner,
  ) {}

  /** Keys recorded for this object that a create replaces, once looked up (`findOwned`, else `create`). */
  private stale: CloudKey[] | undefined;

  /** The spec in the cloud's terms: its name carries the owner mark (the key's owner record). */
  private inCloud(spec: ApiKey['spec']): ApiKey['spec'] {
    return { ...spec, name: cloudKeyName(spec.name, this.owner) };
  }

  /** Keys the cloud records for this object (its mark) that no other object holds. */
  private async recordedKeys(): Promise<CloudKey[]> {
    const keys = await this.cloud.management.listApiKeys();
    return keys.filter((key) => isRecordedFor(key.name, this.owner) && !this.claimedBy(key.id));
  }

  /** Where the key's users reach the cloud, as sluice itself does with these credentials. */
  private where(): ConnectionDetails {
    const { organizationId, managementUrl } = this.cloud.management;
    return { organizationId, managementUrl };
  }

  /** The key id and secret an earlier attempt stored, else new ones: a retried create makes the same key. */
  prepareCreate(_resource: ApiKey, current: Readonly<Record<string, string>> | undefined) {
    const identity =
      current?.keyId && current.keySecret
        ? { keyId: current.keyId, keySecret: current.keySecret }
        : newKeyIdentity();
    return { ...this.where(), ...identity };
  }

  /**
   * After a crash, the key is the one the cloud created after the intent, of this name (owner mark
   * included), with the suffix of the key id the Secret holds (made and stored before the create was sent),
   * that no other ApiKey holds. Without an intent, or a key id in the Secret, no create of this object was sent.
   */
  async findCreated(resource: ApiKey, lost: LostCreate | undefined): Promise<string | undefined> {
    const suffix = this.stored()?.keyId?.slice(-4);
    if (!lost || !suffix) return undefined;
    const keys = await this.cloud.management.listApiKeys();
    const name = this.inCloud(resource.spec).name;
    const ours = (key: { name: string; keySuffix: string }) => key.name === name && key.keySuffix === suffix;
    return createdSince(keys, lost.intent, ours, this.claimedBy);
  }

  /**
   * A key recorded for this object (a cluster rebuilt from Git) is taken back only when the Secret holds
   * its key id (restored from a backup): the cloud never gives a key's secret back, so a key whose secret
   * is lost is no use to take. Those are replaced: `create` makes a new key and the old ones go after the
   * grace period, as a rotation's previous key does.
   */
  async findOwned(_resource: ApiKey, owner: Owner): Promise<OwnedCandidate[]> {
    const recorded = await this.recordedKeys();
    const suffix = this.stored()?.keyId?.slice(-4);
    const held = recorded.filter((key) => suffix !== undefined && key.keySuffix === suffix);
    this.stale = recorded.filter((key) => !held.includes(key));
    return held.map((key) => ({ id: key.id, owner }));
  }

  /**
   * The owner a key to adopt by id records. A mark is a digest, so it names its owner only when it is this
   * object's (under the cluster it acts as): any other mark is another owner, never taken without consent.
   */
  async recordedOwner(_resource: ApiKey, id: string): Promise<Owner | undefined> {
    const key = await ignoreNotFound(this.cloud.management.getApiKey(id));
    if (!key || unmarkedName(key.name) === key.name) return undefined;
    if (isRecordedFor(key.name, this.owner)) return this.owner;
    const mark = key.name.slice(unmarkedName(key.name).length + 1);
    return { cluster: `unnamed (owner mark ${mark})`, namespace: '', kind: 'ApiKey', name: '' };
  }

  /** What a create also does: the keys recorded for this object that it replaces (a rebuild's). */
  async createEffects(resource: ApiKey): Promise<string | undefined> {
    this.stale ??= await this.recordedKeys();
    if (this.stale.length === 0) return undefined;
    const ids = this.stale.map((key) => key.id).join(', ');
    return (
      `replaces key ${ids}, recorded in the cloud for this object, whose secret cannot come back from the ` +
      `cloud: deleted ${gracePeriodMs(resource.spec) / 1000} s after the new key is in the Secret`
    );
  }

  /**
   * Whether the key is one sluice signs in with: these credentials' or the operator's (the API shows no more
   * of a key id than its last 4 letters). Such a key is never written to, whatever the object says.
   */
  private signsInWith(key: CloudKey): boolean {
    const { management, operatorKeySuffix } = this.cloud;
    return management.usesKeySuffix(key.keySuffix) || key.keySuffix === operatorKeySuffix;
  }

  async observe(resource: ApiKey, id: string): Promise<Observed<ApiKey, ApiKeyPlan>> {
    const key = await ignoreNotFound(this.cloud.management.getApiKey(id));
    if (!key) return { exists: false };
    if (this.signsInWith(key)) {
      throw ReconcileError.terminal(
        API_KEY_REASON.OperatorKey,
        `key ${id} is one sluice signs in with (the operator's, or this object's credentials): an ApiKey never manages it; remove the annotation sluice.dev/external-id, or name another key`,
        RETRY_DELAYS.userAction,
      );
    }
    const expired = key.expireAt ? Date.parse(key.expireAt) <= Date.now() : false;
    const specName = (name: string) =>
      name === this.inCloud(resource.spec).name ? resource.spec.name : unmarkedName(name);
    const rotation = planRotation({
      spec: resource.spec,
      annotations: resource.metadata.annotations,
      status: resource.status,
      key,
      stored: this.stored(),
      now: Date.now(),
      make: newKeyIdentity,
    });
    const change = ROTATION_CHANGES[rotation.step];
    return {
      exists: true,
      observed: { ...observedSpec(key), name: specName(key.name) },
      diff: (spec: ApiKey['spec']) => {
        const differing = diffApiKey(this.inCloud(spec), key);
        return {
          differences: differing,
          plan: { patch: apiKeyUpdateBody(this.inCloud(spec), differing), rotation },
          available: !expired,
          ...(expired
            ? { waitingFor: `the key expired at ${key.expireAt}`, reason: API_KEY_REASON.Expired }
            : {}),
        };
      },
      unheldDifferences: change ? [change] : [],
      status: { ...apiKeyStatus(key), ...rotationStatus(rotation) },
      // An object sluice only observes writes no key into its Secret.
      connectionDetails: { ...this.where(), ...(isObserveOnly(resource) ? {} : rotationDetails(rotation)) },
      ...('dueInMs' in rotation && rotation.dueInMs !== undefined ? { dueInMs: rotation.dueInMs } : {}),
    };
  }

  async create(resource: ApiKey, prepared?: ConnectionDetails) {
    if (!prepared?.keyId || !prepared.keySecret) {
      throw new Error('an ApiKey is created only from a key id and secret already stored in its Secret');
    }
    this.stale ??= await this.recordedKeys();
    const [replaced] = this.stale;
    const externalId = await this.createKey(resource, {
      keyId: prepared.keyId,
      keySecret: prepared.keySecret,
    });
    // The rotate annotation a new key is made under is no request for another.
    const asked = rotationAsked(resource.metadata.annotations);
    // A key this object's record names and whose secret is lost (a rebuild) goes as a rotation's previous
    // key: after the grace period, with every other key recorded for it.
    const previous = replaced && {
      previousKeyId: replaced.id,
      previousKeyDeleteAt: new Date(Date.now() + gracePeriodMs(resource.spec)).toISOString(),
    };
    const status = { ...(asked === undefined ? {} : { lastRotation: asked }), ...previous };
    return { externalId, ...(Object.keys(status).length > 0 ? { status } : {}) };
  }

  /** Creates the key from the hashes of `identity`, which is already stored in the Secret; its cloud id. */
  private async createKey(resource: ApiKey, identity: KeyIdentity): Promise<string> {
    try {
      const body = apiKeyCreateBody(this.inCloud(resource.spec), identity);
      const created = await this.cloud.management.createApiKey(body);
      return created.key.id;
    } catch (error) {
      // The same key id exists: an earlier attempt made it and its answer was lost; that key is this one.
      if (!(error instanceof ApiError && error.isConflict())) throw error;
      const suffix = identity.keyId.slice(-4);
      const name = this.inCloud(resource.spec).name;
      const keys = await this.cloud.management.listApiKeys();
      const made = keys.find(
        (key) => key.keySuffix === suffix && key.name === name && !this.claimedBy(key.id),
      );
      if (!made) throw error;
      return made.id;
    }
  }

  async update(
    resource: ApiKey,
    id: string,
    { plan }: { plan: ApiKeyPlan },
  ): Promise<Record<string, unknown> | void> {
    if (Object.keys(plan.patch).length > 0) await this.cloud.management.updateApiKey(id, plan.patch);
    const { rotation } = plan;
    if (rotation.step === 'create') {
      // The key is stored in the Secret as the next one (`observe` asked for it): its clients still read the
      // current key, which status keeps as the previous one, in the same write that names the new one.
      const made = await this.createKey(resource, rotation.identity);
      return {
        id: made,
        keyId: made,
        keySuffix: rotation.identity.keyId.slice(-4),
        previousKeyId: id,
        previousKeyDeleteAt: undefined,
        ...(rotation.asked === undefined ? {} : { lastRotation: rotation.asked }),
      };
    }
    if (rotation.step === 'deletePrevious') {
      // Never the key in status: that is the one the Secret holds.
      if (rotation.previousKeyId !== id) {
        await ignoreNotFound(this.cloud.management.deleteApiKey(rotation.previousKeyId));
      }
      // Any other key recorded for this object (a rebuild that met two) goes with it: one key is left.
      for (const key of await this.recordedKeys()) {
        if (key.id !== id && key.id !== rotation.previousKeyId) {
          await ignoreNotFound(this.cloud.management.deleteApiKey(key.id));
        }
      }
      return { previousKeyId: undefined, previousKeyDeleteAt: undefined };
    }
  }

  /**
   * The DELETE answers once the key is gone (it stops authenticating at once); a 404 means it already was.
   * A rotation's previous key goes with it.
   */
  async delete(resource: ApiKey, id: string): Promise<'gone'> {
    // A key sluice signs in with was never this object's to manage (`observe` refused it): it stays.
    const key = await ignoreNotFound(this.cloud.management.getApiKey(id));
    if (key && this.signsInWith(key)) return 'gone';
    const previous = resource.status?.previousKeyId;
    if (previous !== undefined && previous !== id) {
      await ignoreNotFound(this.cloud.management.deleteApiKey(previous));
    }
    await ignoreNotFound(this.cloud.management.deleteApiKey(id));
    return 'gone';
  }
}

/** The Secret values a rotation's step writes: the next key before its create, then the key itself. */
function rotationDetails(rotation: RotationStep): ConnectionDetails {
  if (rotation.step === 'create') {
    return { [NEXT_KEY_ID]: rotation.identity.keyId, [NEXT_KEY_SECRET]: rotation.identity.keySecret };
  }
  if (rotation.step === 'promote') return { ...rotation.identity };
  return {};
}

/** The status a rotation's step records before its cloud call (if any). */
function rotationStatus(rotation: RotationStep): Record<string, unknown> {
  if (rotation.step === 'promote' || rotation.step === 'wait')
    return { previousKeyDeleteAt: rotation.deleteAt };
  return {};
}
