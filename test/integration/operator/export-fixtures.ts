import type { AlertingClient } from '../../../src/cloud/alerting-client.ts';
import type { ManagementClient, PipeCreateBody } from '../../../src/cloud/management-client.ts';
import { columns, mappings } from './pipe-fixtures.ts';

/** What `buildOrganization` made, by cloud id. */
export interface Organization {
  services: string[];
  pipes: { serviceId: string; id: string }[];
  endpoints: string[];
  queryEndpoints: string[];
  alerts: string[];
}

const until = async (what: string, test: () => Promise<boolean>, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** Pipe bodies of all four sources, with and without credentials, in turn. */
function pipeBody(n: number, endpointId: string | undefined): PipeCreateBody {
  const destination = { database: 'default', table: `t${n}`, managedTable: true, columns };
  const common = {
    name: `Ingest ${n % 7 === 0 ? 'orders' : `stream ${n}`}`,
    destination,
    fieldMappings: mappings,
  };
  switch (n % 6) {
    case 0:
      return {
        ...common,
        source: {
          kafka: {
            brokers: 'b-1.kafka.example.com:9092',
            topics: `events-${n}`,
            authentication: 'SCRAM-SHA-512',
            credentials: { username: 'ingest', password: 'secret' },
            ...(endpointId ? { reversePrivateEndpointIds: [endpointId] } : {}),
          },
        },
        settings: { streaming_max_insert_wait_ms: 2000 },
      };
    case 1:
      return {
        ...common,
        source: { kafka: { brokers: 'b:9092', topics: `t${n}`, authentication: 'IAM_ROLE', iamRole: 'arn:aws:iam::1:role/r' } },
        scaling: { replicas: 2 },
      };
    case 2:
      return {
        ...common,
        source: {
          objectStorage: {
            url: `https://bucket.s3.amazonaws.com/${n}/*.json`,
            format: 'JSONEachRow',
            isContinuous: true,
            authentication: 'IAM_USER',
            accessKey: { accessKeyId: 'AKIA', secretKey: 'secret' },
          },
        },
      };
    case 3:
      return {
        ...common,
        source: { kinesis: { streamName: `s${n}`, region: 'us-east-1', authentication: 'IAM_USER', accessKey: { accessKeyId: 'AKIA', secretKey: 's' } } },
      };
    case 4:
      return {
        name: common.name,
        destination: { database: 'replica' },
        source: {
          postgres: {
            host: 'db.example.com',
            port: 5432,
            database: 'app',
            credentials: { username: 'repl', password: 'secret' },
            tableMappings: [{ sourceSchemaName: 'public', sourceTable: 'orders', targetTable: `orders_${n}` }],
          },
        },
      };
    default:
      return {
        ...common,
        source: { objectStorage: { url: `https://acct.blob.core.windows.net/c/${n}/*.csv`, type: 'azureblobstorage', format: 'CSVWithNames', authentication: 'CONNECTION_STRING', connectionString: 'DefaultEndpointsProtocol=https;AccountKey=k', isContinuous: true } },
      };
  } // prettier-ignore
}

/**
 * An organization made through the API only: `services` services (every third stopped, every third idle,
 * the rest running), three pipes each of all four sources (some stopped), a reverse private endpoint on each
 * of the first `endpoints` services (a kafka pipe goes through it), a query endpoint on the first
 * `queryEndpoints`, and `alerts` alerts. `forceState` moves things the API cannot (idle, an accepted endpoint).
 */
export async function buildOrganization(
  cloud: ManagementClient,
  alerting: AlertingClient,
  forceState: (body: Record<string, unknown>) => Promise<void>,
  counts: {
    services: number;
    pipesPerService: number;
    endpoints: number;
    queryEndpoints: number;
    alerts: number;
  },
): Promise<Organization> {
  const org: Organization = { services: [], pipes: [], endpoints: [], queryEndpoints: [], alerts: [] };
  for (let i = 0; i < counts.services; i++) {
    const { service } = await cloud.createService({
      // Two services whose names give the same object name, so the export must make them unique.
      name: i === 1 ? 'Orders  EU' : i === 0 ? 'Orders EU' : `Analytics ${i}`,
      provider: 'aws',
      region: i % 2 ? 'eu-central-1' : 'us-east-1',
      ...(i % 3 === 0 ? { ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }] } : {}),
      ...(i % 4 === 0 ? { tags: [{ key: 'team', value: 'data' }], idleTimeoutMinutes: 30 } : {}),
      ...(i % 5 === 2 ? { endpoints: [{ protocol: 'mysql', enabled: true }], releaseChannel: 'fast' } : {}),
    });
    org.services.push(service.id);
  }
  const running = async (id: string) => (await cloud.getService(id)).state === 'running';
  await until('services running', async () => (await Promise.all(org.services.map(running))).every(Boolean));

  for (const [i, serviceId] of org.services.entries()) {
    let endpointId: string | undefined;
    if (i < counts.endpoints) {
      const endpoint = await cloud.createReversePrivateEndpoint(serviceId, {
        description: `kafka private link ${i}`,
        type: 'MSK_MULTI_VPC',
        mskClusterArn: `arn:aws:kafka:us-east-1:1:cluster/c${i}`,
        mskAuthentication: 'SASL_SCRAM',
      });
      await forceState({ kind: 'reversePrivateEndpoint', id: endpoint.id, state: 'Ready' });
      org.endpoints.push((endpointId = endpoint.id));
    }
    for (let p = 0; p < counts.pipesPerService; p++) {
      const n = i * counts.pipesPerService + p;
      const pipe = await cloud.createPipe(serviceId, pipeBody(n, endpointId));
      org.pipes.push({ serviceId, id: pipe.id });
    }
    if (i < counts.queryEndpoints) {
      const endpoint = await cloud.upsertQueryEndpoint(serviceId, {
        roles: ['sql_console_read_only'],
        ...(i % 2 ? { allowedOrigins: 'app.example.com', openApiKeys: ['key-1'] } : {}),
      });
      org.queryEndpoints.push(endpoint.id);
    }
  }
  const settled = ['Running', 'Stopped', 'Completed'];
  const pipeSettled = async ({ serviceId, id }: { serviceId: string; id: string }) =>
    settled.includes((await cloud.getPipe(serviceId, id)).state);
  await until('pipes running', async () => (await Promise.all(org.pipes.map(pipeSettled))).every(Boolean));
  for (const [n, { serviceId, id }] of org.pipes.entries()) {
    if (n % 5 === 4) await cloud.changePipeState(serviceId, id, 'stop');
  }
  for (const [i, id] of org.services.entries()) {
    if (i % 3 === 1) await cloud.changeServiceState(id, 'stop');
    if (i % 3 === 2) await forceState({ kind: 'service', id, state: 'idle' });
  }
  const states = ['running', 'idle', 'stopped'];
  await until('services settled', async () =>
    (
      await Promise.all(org.services.map(async (id) => states.includes((await cloud.getService(id)).state!)))
    ).every(Boolean),
  );
  await until('pipes settled', async () => (await Promise.all(org.pipes.map(pipeSettled))).every(Boolean));

  for (let a = 0; a < counts.alerts; a++) {
    const alert = await alerting.createAlert({
      name: `Alert ${a}`,
      threshold: 10 + a,
      thresholdType: a % 2 ? 'below' : 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: 'hook-1' },
      ...(a % 2
        ? { source: 'search', savedSearchId: `search-${a}`, groupBy: 'host' }
        : { source: 'tile', dashboardId: 'dash-1', tileId: `tile-${a}` }),
      ...(a === 0 ? { message: 'inserts are slow' } : {}),
    });
    org.alerts.push(alert.id);
  }
  return org;
}
