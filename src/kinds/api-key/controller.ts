import { API_KEY_POLICY, apiKeySchema, type ApiKey } from './schema.ts';
import type { ApiKeyUpdateBody } from '../../cloud/management-client.ts';
import { newKeyIdentity } from '../../cloud/api-key-hash.ts';
import { ApiError } from '../../cloud/errors.ts';
import {
  applyFieldPolicy,
  type ConnectContext,
  type ConnectionDetails,
  type ExternalClient,
  type LostCreate,
  type Observation,
} from '../../managed/index.ts';
import { apiKeyCreateBody, apiKeyStatus, apiKeyUpdateBody, diffApiKey, observedSpec } from './mapping.ts';
import { createdSince, ignoreNotFound } from '../shared/cloud-calls.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';
import type { SluiceKind } from '../shared/sluice-kind.ts';

export const apiKeyKind: SluiceKind<ApiKey, ApiKeyUpdateBody> = {
  ...apiKeySchema,
  // The key's credentials Secret is its connection Secret: the secret only sluice ever knew lives there.
  connectionSecret: {
    name: (resource) => resource.spec.credentialsSecret.name,
    requiredKeys: ['keyId', 'keySecret'],
  },
  // Keys are read with a GET each: a drift check of one key does not wait for the organization's list.
  driftReads: () => [{ api: 'management' }],
  connect: (_resource, { cloud, claimedBy }) => new ApiKeyClient(cloud, claimedBy),
};

/**
 * A management key made from a secret sluice makes: the Secret holds the key id and secret before the
 * create sends their hashes, so no key exists whose secret is not in the Secret.
 */
class ApiKeyClient implements ExternalClient<ApiKey, ApiKeyUpdateBody> {
  constructor(
    private readonly cloud: CloudConnection,
    private readonly claimedBy: ConnectContext<CloudConnection>['claimedBy'],
  ) {}

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
   * Keys carry no tags: after a crash, the key is the one with this name that the cloud created after the
   * intent and no other ApiKey holds (its secret is the Secret's: the create sent that one's hash). Without
   * an intent a look-alike is never adopted.
   */
  async findCreated(resource: ApiKey, lost: LostCreate | undefined): Promise<string | undefined> {
    if (!lost) return undefined;
    const keys = await this.cloud.management.listApiKeys();
    return createdSince(keys, lost.intent, (key) => key.name === resource.spec.name, this.claimedBy);
  }

  async observe(resource: ApiKey, id: string): Promise<Observation<ApiKeyUpdateBody>> {
    const key = await ignoreNotFound(this.cloud.management.getApiKey(id));
    if (!key) return { exists: false };
    const { plan, differences, drift } = applyFieldPolicy(
      resource,
      API_KEY_POLICY,
      observedSpec(key),
      (spec) => {
        const differing = diffApiKey(spec, key);
        return { body: apiKeyUpdateBody(spec, differing), differences: differing };
      },
    );
    const expired = key.expireAt ? Date.parse(key.expireAt) <= Date.now() : false;
    return {
      exists: true,
      plan: plan.body,
      differences,
      drift,
      available: !expired,
      ...(expired ? { waitingFor: `the key expired at ${key.expireAt}`, reason: 'Expired' } : {}),
      status: apiKeyStatus(key),
      connectionDetails: this.where(),
    };
  }

  async create(resource: ApiKey, prepared?: ConnectionDetails) {
    if (!prepared?.keyId || !prepared.keySecret) {
      throw new Error('an ApiKey is created only from a key id and secret already stored in its Secret');
    }
    const identity = { keyId: prepared.keyId, keySecret: prepared.keySecret };
    try {
      const created = await this.cloud.management.createApiKey(apiKeyCreateBody(resource.spec, identity));
      return { externalId: created.key.id };
    } catch (error) {
      // The same key id exists: an earlier attempt made it and its answer was lost; that key is this one.
      if (!(error instanceof ApiError && error.isConflict())) throw error;
      const suffix = identity.keyId.slice(-4);
      const keys = await this.cloud.management.listApiKeys();
      const made = keys.find(
        (key) => key.keySuffix === suffix && key.name === resource.spec.name && !this.claimedBy(key.id),
      );
      if (!made) throw error;
      return { externalId: made.id };
    }
  }

  async update(_resource: ApiKey, id: string, observation: { plan: ApiKeyUpdateBody }): Promise<void> {
    await this.cloud.management.updateApiKey(id, observation.plan);
  }

  /** The DELETE answers once the key is gone (it stops authenticating at once); a 404 means it already was. */
  async delete(_resource: ApiKey, id: string): Promise<'gone'> {
    await ignoreNotFound(this.cloud.management.deleteApiKey(id));
    return 'gone';
  }
}
