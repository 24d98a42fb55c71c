import { GROUP, VERSION } from '../api/common.ts';
import { DatabaseServiceSpec, DatabaseServiceStatus, type DatabaseService } from '../api/database-service.ts';
import type { Service } from '../cloud/schemas/service.ts';
import { ANNOTATIONS } from '../runtime/managed/annotations.ts';
import type { ExternalClient, Observation } from '../runtime/managed/types.ts';
import type { CloudConnection } from '../operator/cloud-connection.ts';
import { ignoreNotFound } from './cloud-calls.ts';
import type { SluiceKind } from './sluice-kind.ts';
import {
  availability,
  desiredTags,
  diffService,
  UID_TAG,
  type ServiceDiff,
} from './database-service-diff.ts';

export const databaseServiceKind: SluiceKind<DatabaseService, ServiceDiff> = {
  kind: 'DatabaseService',
  group: GROUP,
  version: VERSION,
  plural: 'databaseservices',
  singular: 'databaseservice',
  shortNames: ['dbs'],
  description: 'A cloud database service managed by sluice.',
  spec: DatabaseServiceSpec,
  status: DatabaseServiceStatus,
  printerColumns: [
    { name: 'Name', type: 'string', jsonPath: '.spec.name', priority: 1 },
    { name: 'State', type: 'string', jsonPath: '.status.state' },
  ],
  defaultDeletionPolicy: 'Orphan',
  connectionSecret: {
    name: (resource) => resource.spec.connectionSecret?.name ?? `${resource.metadata.name}-connection`,
    requiredKeys: ['password'],
  },
  connect: (_resource, { cloud }) => new DatabaseServiceClient(cloud),
};

class DatabaseServiceClient implements ExternalClient<DatabaseService, ServiceDiff> {
  constructor(private readonly cloud: CloudConnection) {}

  private get calls() {
    return { priority: this.cloud.priority };
  }

  async findCreated(resource: DatabaseService, intent: Date | undefined): Promise<string | undefined> {
    // No intent, no create was ever sent for this object (the intent is written before every create): a new
    // service costs no look-up. With one, the uid tag finds exactly what was created for it.
    if (!intent) return undefined;
    const found = await this.cloud.management.listServices(
      { tags: { [UID_TAG]: resource.metadata.uid } },
      this.calls,
    );
    return found.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''))[0]?.id;
  }

  async observe(resource: DatabaseService, id: string): Promise<Observation<ServiceDiff>> {
    const service = await this.getService(id);
    if (!service) return { exists: false };
    // An adopted service changes only where the spec says: no marker tag (its id is in status already).
    const adopted = resource.metadata.annotations?.[ANNOTATIONS.externalId] !== undefined;
    const diff = diffService(resource.spec, adopted ? undefined : resource.metadata.uid, service);
    return {
      exists: true,
      // The diff itself is what update needs: the PATCH and command for exactly the service observed.
      plan: diff,
      differences: diff.differences,
      ...availability(resource.spec, service),
      status: {
        state: service.state,
        endpoints: service.endpoints?.map(({ protocol, host, port, username }) => ({
          protocol,
          host,
          port,
          ...(username ? { username } : {}),
        })),
        engineVersion: service.engineVersion,
        dataWarehouseId: service.dataWarehouseId,
        privateEndpointIds: service.privateEndpointIds,
        ipAccessList: service.ipAccessList?.map(({ source, description }) => ({
          source,
          ...(description ? { description } : {}),
        })),
      },
      connectionDetails: connectionDetails(service),
    };
  }

  async create(resource: DatabaseService) {
    // sluice's own fields never reach the cloud; a TDE key id is a rotation, sent by update once created.
    const {
      state: _state,
      deletionPolicy: _deletionPolicy,
      credentialsRef: _credentialsRef,
      connectionSecret: _connectionSecret,
      transparentDataEncryptionKeyId: _rotation,
      ...cloudFields
    } = resource.spec;
    const { service, password } = await this.cloud.management.createService(
      { ...cloudFields, tags: desiredTags(resource.spec, resource.metadata.uid) },
      { priority: 'user' },
    );
    return {
      externalId: service.id,
      connectionDetails: { ...connectionDetails(service), password },
    };
  }

  async update(_resource: DatabaseService, id: string, observation: { plan: ServiceDiff }) {
    const { patch, replicaScaling, command } = observation.plan;
    if (Object.keys(patch).length > 0)
      await this.cloud.management.updateService(id, patch, { priority: 'user' });
    if (replicaScaling)
      await this.cloud.management.updateReplicaScaling(id, replicaScaling, { priority: 'user' });
    if (command) await this.cloud.management.changeServiceState(id, command, { priority: 'user' });
  }

  /** Stop, wait until stopped, DELETE, wait for 404 — one step per call, the reconciler polls between. */
  async delete(_resource: DatabaseService, id: string): Promise<'gone' | 'pending'> {
    const service = await this.getService(id);
    if (!service) return 'gone';
    switch (service.state) {
      case 'running':
      case 'idle':
      case 'degraded':
        await this.cloud.management.changeServiceState(id, 'stop', { priority: 'user' });
        return 'pending';
      case 'stopped':
      case 'failed':
        await ignoreNotFound(this.cloud.management.deleteService(id, { priority: 'user' }));
        return 'pending';
      default:
        return 'pending';
    }
  }

  async recoverConnectionDetails(_resource: DatabaseService, id: string) {
    const { password } = await this.cloud.management.resetServicePassword(id, { priority: 'user' });
    return { password };
  }

  private getService(id: string): Promise<Service | undefined> {
    return ignoreNotFound(this.cloud.management.getService(id, this.calls));
  }
}

/**
 * Host and port of the primary (https) endpoint plus one pair per protocol, and the user name. The password
 * is added by create or recovered by a reset; it never comes from an observation.
 */
function connectionDetails(service: Service): Record<string, string> {
  const endpoints = service.endpoints ?? [];
  const primary = endpoints.find((e) => e.protocol === 'https') ?? endpoints[0];
  const details: Record<string, string> = {};
  if (primary) {
    details.host = primary.host;
    details.port = String(primary.port);
    details.username = primary.username ?? 'default';
  }
  for (const endpoint of endpoints) {
    details[`${endpoint.protocol}_host`] = endpoint.host;
    details[`${endpoint.protocol}_port`] = String(endpoint.port);
  }
  return details;
}
