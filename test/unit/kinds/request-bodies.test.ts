import { describe, expect, it } from 'vitest';
import type { AlertSpec } from '../../../src/kinds/alert/schema.ts';
import type { DatabaseServiceSpec } from '../../../src/kinds/database-service/schema.ts';
import type { PipeSpec } from '../../../src/kinds/pipe/schema.ts';
import type { QueryEndpointSpec } from '../../../src/kinds/query-endpoint/schema.ts';
import type { ReversePrivateEndpointSpec } from '../../../src/kinds/reverse-private-endpoint/schema.ts';
import { requestBody } from '../../../src/cloud/request-body.ts';
import { PipeCreateRequest } from '../../../src/cloud/schemas/pipe.ts';
import { ServiceCreateRequest } from '../../../src/cloud/schemas/service.ts';
import { alertBody } from '../../../src/kinds/alert/mapping.ts';
import { serviceCreateBody } from '../../../src/kinds/database-service/mapping.ts';
import { pipeCreateBody } from '../../../src/kinds/pipe/mapping.ts';
import { queryEndpointBody } from '../../../src/kinds/query-endpoint/mapping.ts';
import { rpeCreateBody } from '../../../src/kinds/reverse-private-endpoint/mapping.ts';
import { tileAlert } from '../../../tools/fixtures/alert.ts';
import { columns, mappings } from '../../../tools/fixtures/pipe.ts';

/** A field sluice might add to a spec one day: it is nowhere in the cloud's contract. */
const NEW = 'sluiceOnlyField';
const withNew = <T extends object>(value: T): T => ({ ...value, [NEW]: 'never sent' });
/** Every key of a body, at every depth. */
const keysOf = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap(keysOf)
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, child]) => [key, ...keysOf(child)])
      : [];

const service: DatabaseServiceSpec = {
  name: 'analytics',
  provider: 'aws',
  region: 'us-east-1',
  state: 'Running',
  deletionPolicy: 'Orphan',
  managementPolicy: 'Full',
  credentialsRef: { name: 'cloud' },
  connectionSecret: { name: 'app-db', template: { URL: '{{ .host }}' } },
  passwordSecretRef: { name: 'owned', key: 'password' },
  transparentDataEncryptionKeyId: 'key-2',
  ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
  tags: [{ key: 'team', value: 'data' }],
};

describe('request bodies carry only the fields of the cloud contract', () => {
  it("a DatabaseService create body has the contract's fields and none of sluice's (managementPolicy included)", () => {
    const body = serviceCreateBody(service, 'prod/team-a/DatabaseService/analytics');
    expect(body).toEqual({
      name: 'analytics',
      provider: 'aws',
      region: 'us-east-1',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }],
      tags: [
        { key: 'team', value: 'data' },
        { key: 'sluice.dev/owner', value: 'prod/team-a/DatabaseService/analytics' },
      ],
    });
    expect(ServiceCreateRequest.safeParse(body).success).toBe(true);
  });

  it('a field sluice adds to any spec, at any depth, never reaches a create or update body', () => {
    const pipe: PipeSpec = {
      serviceRef: { name: 'analytics' },
      name: 'orders',
      source: withNew({
        kafka: withNew({
          brokers: 'broker-1.example.com:9092',
          topics: 'orders',
          credentialsSecretRef: { name: 'kafka-user' },
          schemaRegistry: withNew({ url: 'https://registry.example.com' }),
        }),
      }),
      destination: withNew({ database: 'default', table: 'orders', columns }),
      fieldMappings: mappings,
      state: 'Running',
      deletionPolicy: 'Delete',
    } as PipeSpec;
    const credentials = { username: 'ingest', password: 'kafka-pass' };
    const alert = withNew({ ...tileAlert('cpu'), channel: withNew(tileAlert('cpu').channel) });
    const endpoint = withNew({
      serviceRef: { name: 'analytics' },
      roles: ['sql_console_read_only'],
      deletionPolicy: 'Delete',
    }) as QueryEndpointSpec;
    const rpe = withNew({
      serviceRef: { name: 'analytics' },
      description: 'brokers',
      type: 'VPC_ENDPOINT_SERVICE',
      vpcEndpointServiceName: 'com.amazonaws.vpce.us-east-1.vpce-svc-0123',
      deletionPolicy: 'Delete',
    }) as ReversePrivateEndpointSpec;

    const bodies = {
      service: serviceCreateBody(withNew(service), 'uid-1'),
      pipe: pipeCreateBody(withNew(pipe), (field) =>
        field === 'source.kafka.credentialsSecretRef' ? credentials : undefined,
      ),
      alert: alertBody(alert as AlertSpec),
      queryEndpoint: queryEndpointBody(endpoint),
      reversePrivateEndpoint: rpeCreateBody(rpe),
    };
    for (const [kind, body] of Object.entries(bodies)) {
      expect({ kind, keys: keysOf(body) }).not.toEqual({ kind, keys: expect.arrayContaining([NEW]) });
    }
    // What the contract does name still goes, secret references replaced by their values.
    expect(bodies.pipe.source.kafka).toEqual({
      brokers: 'broker-1.example.com:9092',
      topics: 'orders',
      credentials,
      schemaRegistry: { url: 'https://registry.example.com' },
    });
    expect(PipeCreateRequest.safeParse(bodies.pipe).success).toBe(true);
  });

  it('requestBody keeps the keys of a schema open to more (pipe settings) and leaves undefined ones out', () => {
    const body = requestBody(PipeCreateRequest, {
      name: 'p',
      fieldMappings: undefined,
      settings: { max_threads: 2, kafka_read_committed: true },
    });
    expect(body).toEqual({ name: 'p', settings: { max_threads: 2, kafka_read_committed: true } });
  });
});
