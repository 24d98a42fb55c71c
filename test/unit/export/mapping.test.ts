import { describe, expect, it } from 'vitest';
import { DatabaseServiceSpec } from '../../../src/kinds/database-service/schema.ts';
import { PipeSpec } from '../../../src/kinds/pipe/schema.ts';
import { AlertSpec } from '../../../src/kinds/alert/schema.ts';
import { QueryEndpointSpec } from '../../../src/kinds/query-endpoint/schema.ts';
import { ReversePrivateEndpointSpec } from '../../../src/kinds/reverse-private-endpoint/schema.ts';
import type { Alert } from '../../../src/cloud/schemas/alert.ts';
import type { Pipe } from '../../../src/cloud/schemas/pipe.ts';
import type { ReversePrivateEndpoint } from '../../../src/cloud/schemas/reverse-private-endpoint.ts';
import type { Service } from '../../../src/cloud/schemas/service.ts';
import { diffAlert, exportAlert } from '../../../src/kinds/alert/mapping.ts';
import { diffService, exportService } from '../../../src/kinds/database-service/mapping.ts';
import { OWNER_TAG, UID_TAG } from '../../../src/kinds/shared/service-tags.ts';
import { diffPipe, exportPipe } from '../../../src/kinds/pipe/mapping.ts';
import { diffQueryEndpoint, exportQueryEndpoint } from '../../../src/kinds/query-endpoint/mapping.ts';
import {
  exportReversePrivateEndpoint,
  rpeDifferences,
} from '../../../src/kinds/reverse-private-endpoint/mapping.ts';

// Each kind's export mapping is pinned by its own diff: the spec it writes for a cloud object must find no
// difference with that object, or the first reconcile after adoption would write to the cloud.

const specOf = <T>(mapped: { spec: T } | { unexpressible: string }): T => {
  if (!('spec' in mapped)) throw new Error(`unexpressible: ${mapped.unexpressible}`);
  return mapped.spec;
};

const SERVICE: Service = {
  id: '6f1c1d2e-0000-4000-8000-000000000001',
  name: 'Orders EU',
  provider: 'aws',
  region: 'eu-central-1',
  state: 'idle',
  minTotalMemoryGb: 48,
  maxTotalMemoryGb: 360,
  minReplicaMemoryGb: 16,
  maxReplicaMemoryGb: 120,
  numReplicas: 3,
  idleScaling: true,
  idleTimeoutMinutes: 30,
  autoscalingMode: 'vertical',
  releaseChannel: 'fast',
  isPrimary: true,
  isReadonly: false,
  dataWarehouseId: '6f1c1d2e-0000-4000-8000-0000000000aa',
  ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
  privateEndpointIds: [],
  endpoints: [
    { protocol: 'https', host: 'h', port: 8443 },
    { protocol: 'mysql', host: 'h', port: 3306 },
  ],
  tags: [
    { key: 'team', value: 'data' },
    { key: UID_TAG, value: 'someone-elses-uid' },
    { key: OWNER_TAG, value: 'prod/default/DatabaseService/orders' },
  ],
  engineVersion: '25.8',
  iamRole: 'arn:aws:iam::0:role/x',
};

describe('exportService', () => {
  it('writes the fields a user sets, leaves server defaults and reported-only fields out', () => {
    const spec = specOf(exportService(SERVICE));
    expect(spec).toEqual({
      name: 'Orders EU',
      provider: 'aws',
      region: 'eu-central-1',
      minReplicaMemoryGb: 16,
      maxReplicaMemoryGb: 120,
      numReplicas: 3,
      idleTimeoutMinutes: 30,
      releaseChannel: 'fast',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
      endpoints: [{ protocol: 'mysql', enabled: true }],
      tags: [{ key: 'team', value: 'data' }],
      state: 'Running',
    });
    expect(DatabaseServiceSpec.safeParse(spec).success).toBe(true);
  });

  it('finds no difference with the service it was exported from, apart from sluice’s own uid tag', () => {
    const spec = DatabaseServiceSpec.parse(specOf(exportService(SERVICE)));
    const diff = diffService(spec, 'uid', {
      ...SERVICE,
      tags: SERVICE.tags!.filter((t) => t.key !== UID_TAG),
    });
    expect(diff.differences.filter((field) => field !== 'tags')).toEqual([]);
    expect(diff.replicaScaling).toBeUndefined();
    expect(diff.command).toBeUndefined();
  });

  it('keeps a stopped service stopped and a secondary one in its warehouse, read-only', () => {
    const secondary = { ...SERVICE, state: 'stopped', isPrimary: false, isReadonly: true, numReplicas: 1 };
    const spec = specOf(exportService(secondary));
    expect(spec).toMatchObject({
      state: 'Stopped',
      dataWarehouseId: SERVICE.dataWarehouseId,
      isReadonly: true,
      numReplicas: 1,
    });
    expect(diffService(DatabaseServiceSpec.parse(spec), 'uid', secondary).command).toBeUndefined();
  });

  it('leaves out the one replica of a first service, which a spec could not ask for', () => {
    const spec = specOf(exportService({ ...SERVICE, numReplicas: 1 }));
    expect(spec.numReplicas).toBeUndefined();
    expect(
      specOf(
        exportService({
          ...SERVICE,
          autoscalingMode: 'horizontal',
          minReplicas: 2,
          maxReplicas: 6,
          minReplicaMemoryGb: 16,
          maxReplicaMemoryGb: 16,
        }),
      ),
    ).toMatchObject({ autoscalingMode: 'horizontal', minReplicas: 2, maxReplicas: 6 });
  });

  it('writes the backup policy apart from the cloud’s defaults, the schedule and the upgrade window', () => {
    const window = {
      name: 'peak',
      weekdays: [1, 2],
      startHourUtc: 8,
      endHourUtc: 18,
      minReplicas: 5,
      maxReplicas: 5,
    };
    const around = {
      backupConfiguration: {
        backupPeriodInHours: 24,
        backupRetentionPeriodInHours: 72,
        backupStartTime: '02:30',
      },
      scalingSchedule: { entries: [{ ...window, weekdays: [2, 1], id: 'e1', isActiveNow: false }] },
      upgradeWindow: { weekday: 3, startHourUtc: 12, duration: 6 },
    };
    const spec = specOf(exportService(SERVICE, around));
    expect(spec).toMatchObject({
      backups: { retentionInHours: 72, startTime: '02:30' },
      scalingSchedule: [window],
      upgradeWindow: { weekday: 3, startHourUtc: 12 },
    });
    expect(spec.backups as object).not.toHaveProperty('periodInHours');
    const parsed = DatabaseServiceSpec.parse(spec);
    const surroundings = {
      backups: { periodInHours: 24 as const, retentionInHours: 72, startTime: '02:30' },
      scalingSchedule: { windows: [window] },
      upgradeWindow: { weekday: 3, startHourUtc: 12 },
    };
    const diff = diffService(parsed, undefined, SERVICE, surroundings);
    expect(diff.differences).toEqual([]);
  });

  it('leaves out a backup policy that is the cloud’s default, and what the service does not have', () => {
    const around = {
      backupConfiguration: {
        backupPeriodInHours: 24,
        backupRetentionPeriodInHours: 24,
        backupStartTime: null,
      },
      scalingSchedule: { entries: [] },
    };
    const spec = specOf(exportService(SERVICE, around));
    expect(spec).not.toHaveProperty('backups');
    expect(spec).not.toHaveProperty('scalingSchedule');
    expect(spec).not.toHaveProperty('upgradeWindow');
  });

  it('writes the sizing the service runs outside its windows while a window is active', () => {
    const window = {
      name: 'peak',
      weekdays: [1],
      startHourUtc: 8,
      endHourUtc: 9,
      minReplicas: 5,
      maxReplicas: 5,
    };
    const scalingSchedule = {
      entries: [{ ...window, id: 'e1', isActiveNow: true }],
      activeEntryId: 'e1',
      baseConfig: {
        autoscalingMode: 'vertical' as const,
        minReplicas: 3,
        maxReplicas: 3,
        minReplicaMemoryGb: 16,
        maxReplicaMemoryGb: 120,
      },
    };
    const running = { ...SERVICE, numReplicas: 5 };
    const spec = specOf(exportService(running, { scalingSchedule }));
    expect(spec).toMatchObject({ numReplicas: 3, scalingSchedule: [window] });
    // Inside the window the cloud runs the window's 5 replicas: no correction towards the base's 3.
    const diff = diffService(DatabaseServiceSpec.parse(spec), undefined, running, {
      scalingSchedule: { windows: [window], active: window },
    });
    expect(diff.replicaScaling).toBeUndefined();
  });

  it('refuses a service being deleted', () => {
    expect(exportService({ ...SERVICE, state: 'terminating' })).toEqual({
      unexpressible: 'the service is being deleted',
    });
  });
});

const pipe = (source: Record<string, unknown>, extra: Partial<Pipe> = {}): Pipe => ({
  id: 'p1',
  serviceId: SERVICE.id,
  name: 'orders',
  state: 'Running',
  source,
  destination: { database: 'default', table: 'orders', columns: [{ name: 'id', type: 'UInt64' }] },
  fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
  scaling: { replicas: 2, concurrency: 1, replicaCpuMillicores: 125, replicaMemoryGb: 0.5 },
  settings: { streaming_max_insert_wait_ms: 1000 },
  ...extra,
});
const secretName = (purpose: string) => `orders-${purpose}`;
const noEndpoint = () => undefined;

describe('exportPipe', () => {
  it('turns each credential the authentication needs into a Secret reference, and names the Secret', () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ kafka: { brokers: 'b:9092', topics: 't', authentication: 'PLAIN' } }, ['orders-kafka-credentials']],
      [{ kafka: { brokers: 'b:9092', topics: 't', authentication: 'IAM_ROLE', iamRole: 'r' } }, []],
      [{ objectStorage: { url: 'https://b/x*', authentication: 'IAM_USER' } }, ['orders-object-storage-access-key']],
      [{ objectStorage: { url: 'https://b/x*', authentication: 'CONNECTION_STRING' } }, ['orders-object-storage-connection-string']],
      [{ objectStorage: { url: 'https://b/x*' } }, []],
      [{ kinesis: { streamName: 's', region: 'us-east-1', authentication: 'IAM_USER' } }, ['orders-kinesis-access-key']],
      [{ postgres: { host: 'db', port: 5432, database: 'app' } }, ['orders-postgres-credentials']],
    ]; // prettier-ignore
    for (const [source, names] of cases) {
      const mapped = exportPipe(pipe(source), secretName, noEndpoint);
      if (!('secrets' in mapped)) throw new Error(mapped.unexpressible);
      expect(mapped.secrets.map((s) => s.name)).toEqual(names);
      expect(PipeSpec.safeParse({ serviceRef: { name: 's' }, ...mapped.spec }).success).toBe(true);
    }
  });

  it('writes settings beyond the contract’s under extraSettings, by the type of their value', () => {
    const observed = {
      ...pipe({ kafka: { brokers: 'b:9092', topics: 't' } }),
      settings: { streaming_max_insert_wait_ms: 1000, kafka_read_committed: true, kafka_client_id: 'x' },
    } as Parameters<typeof exportPipe>[0];
    const mapped = specOf(exportPipe(observed, secretName, noEndpoint));
    expect(mapped).toMatchObject({
      settings: { streaming_max_insert_wait_ms: 1000 },
      extraSettings: { booleans: { kafka_read_committed: true }, strings: { kafka_client_id: 'x' } },
    });
    const spec = PipeSpec.parse({ serviceRef: { name: 's' }, ...mapped });
    expect(diffPipe(spec, observed, new Set(), () => undefined, []).differences).toEqual([]);
  });

  it('finds no difference with the pipe it was exported from, its credentials taken as the cloud’s', () => {
    const observed = pipe({ kafka: { brokers: 'b:9092', topics: 't', authentication: 'SCRAM-SHA-512' } });
    const spec = PipeSpec.parse({
      serviceRef: { name: 's' },
      ...specOf(exportPipe(observed, secretName, noEndpoint)),
    });
    const plan = diffPipe(spec, observed, new Set(), () => ({ username: 'u', password: 'p' }));
    expect(plan).toEqual({ differences: [] });
  });

  it('leaves default scaling out and names exported reverse private endpoints by reference', () => {
    const observed = pipe({
      kafka: { brokers: 'b:9092', topics: 't', reversePrivateEndpointIds: ['e1', 'e2'] },
    });
    const spec = specOf(exportPipe(observed, secretName, (id) => (id === 'e1' ? 'msk-prod' : undefined)));
    expect(spec.scaling).toEqual({ replicas: 2 });
    expect((spec.source as { kafka: unknown }).kafka).toMatchObject({
      reversePrivateEndpointIds: ['e2'],
      reversePrivateEndpointRefs: [{ name: 'msk-prod' }],
    });
  });

  it('keeps Stopped, and refuses a Paused pipe, which either state would command', () => {
    const kafka = { kafka: { brokers: 'b:9092', topics: 't' } };
    expect(specOf(exportPipe(pipe(kafka, { state: 'Stopped' }), secretName, noEndpoint)).state).toBe(
      'Stopped',
    );
    expect(exportPipe(pipe(kafka, { state: 'Paused' }), secretName, noEndpoint)).toHaveProperty(
      'unexpressible',
    );
  });
});

describe('exportQueryEndpoint', () => {
  it('writes roles, keys and origins and finds no difference with the endpoint', () => {
    const observed = {
      id: 'q',
      roles: ['sql_console_admin'],
      openApiKeys: ['k1'],
      allowedOrigins: 'b.com, a.com',
    };
    const spec = specOf(exportQueryEndpoint(observed));
    expect(spec).toEqual({
      roles: ['sql_console_admin'],
      openApiKeys: ['k1'],
      allowedOrigins: 'a.com,b.com',
    });
    const parsed = QueryEndpointSpec.parse({ serviceId: SERVICE.id, ...spec });
    expect(diffQueryEndpoint(parsed, observed)).toEqual([]);
  });

  it('refuses an endpoint without roles, which a spec must have', () => {
    expect(exportQueryEndpoint({ id: 'q', roles: [] })).toHaveProperty('unexpressible');
  });
});

describe('exportReversePrivateEndpoint', () => {
  const endpoint: ReversePrivateEndpoint = {
    id: 'e1',
    serviceId: SERVICE.id,
    description: 'msk prod',
    type: 'MSK_MULTI_VPC',
    mskClusterArn: 'arn:aws:kafka:x',
    mskAuthentication: 'SASL_SCRAM',
    status: 'Ready',
    endpointId: 'vpce-1',
  };

  it('writes the identity fields of its type only and finds no difference', () => {
    const spec = specOf(exportReversePrivateEndpoint(endpoint));
    expect(spec).toEqual({
      description: 'msk prod',
      type: 'MSK_MULTI_VPC',
      mskClusterArn: 'arn:aws:kafka:x',
      mskAuthentication: 'SASL_SCRAM',
    });
    const parsed = ReversePrivateEndpointSpec.parse({ serviceId: SERVICE.id, ...spec });
    expect(rpeDifferences(parsed, endpoint)).toEqual([]);
  });

  it('refuses one without a description or being deleted', () => {
    expect(exportReversePrivateEndpoint({ ...endpoint, description: undefined })).toHaveProperty(
      'unexpressible',
    );
    expect(exportReversePrivateEndpoint({ ...endpoint, status: 'Deleting' })).toHaveProperty('unexpressible');
  });
});

describe('exportAlert', () => {
  const alert: Alert = {
    id: 'a1',
    name: 'slow inserts',
    threshold: 5,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    state: 'OK',
    channel: { type: 'webhook', webhookId: 'w1' },
    dashboard: 'd1',
    dashboardId: 'd1',
    tileId: 't1',
    team: 'team-1',
    createdAt: '2026-01-01T00:00:00Z',
  };

  it('writes the request fields and finds no difference with the alert', () => {
    const spec = specOf(exportAlert(alert));
    expect(spec).toEqual({
      threshold: 5,
      interval: '5m',
      source: 'tile',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: 'w1' },
      dashboardId: 'd1',
      tileId: 't1',
      name: 'slow inserts',
    });
    expect(diffAlert(AlertSpec.parse(spec), alert)).toEqual([]);
  });

  it('refuses an alert whose scheduling fields a spec could not keep', () => {
    expect(exportAlert({ ...alert, numConsecutiveWindows: 3 })).toEqual({
      unexpressible: 'a spec has no field for numConsecutiveWindows',
    });
  });
});

describe('exportPipe with a credential the cloud returns', () => {
  it('never prints it: the connection string becomes a Secret reference like the others', () => {
    const observed = pipe({
      objectStorage: {
        url: 'https://a.blob/c/*',
        authentication: 'CONNECTION_STRING',
        connectionString: 'AccountKey=k',
      },
    });
    const mapped = exportPipe(observed, secretName, noEndpoint);
    expect(JSON.stringify(mapped)).not.toContain('AccountKey');
    expect(mapped).toMatchObject({
      spec: {
        source: {
          objectStorage: { connectionStringSecretRef: { name: 'orders-object-storage-connection-string' } },
        },
      },
      secrets: [{ name: 'orders-object-storage-connection-string', keys: ['connectionString'] }],
    });
  });
});

describe('exportPipe with a setting named like a credential', () => {
  it('leaves it out of the manifest and names it, so its value is never printed and the cloud keeps it', () => {
    const observed = {
      ...pipe({ kafka: { brokers: 'b:9092', topics: 't' } }),
      settings: { sasl_password: 'setting-pass-1', kafka_client_id: 'x' },
    } as Parameters<typeof exportPipe>[0];
    const mapped = exportPipe(observed, secretName, noEndpoint);
    expect(JSON.stringify(mapped)).not.toContain('setting-pass-1');
    expect(mapped).toMatchObject({
      spec: { extraSettings: { strings: { kafka_client_id: 'x' } } },
      withheld: ['extraSettings.strings.sasl_password'],
    });
    // A key the spec never set is the cloud's: the adopted pipe neither reports nor resets it.
    const spec = PipeSpec.parse({ serviceRef: { name: 's' }, ...specOf(mapped) });
    expect(diffPipe(spec, observed, new Set(), () => undefined, []).differences).toEqual([]);
  });
});
