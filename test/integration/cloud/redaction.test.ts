import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AlertingClient } from '../../../src/cloud/alerting-client.ts';
import { ManagementClient } from '../../../src/cloud/management-client.ts';
import {
  addFault,
  alertingClient,
  eventually,
  forceState,
  managementClient,
  ROUTES,
  testOptions,
  useEmulator,
} from './support.ts';
import { capturedLogger } from '../../support/captured-log.ts';

const KEY_SECRET = 'emu-key-secret-Zq81hP0w';
const ALERTS_TOKEN = 'emu-alerts-token-Xv27mK4r';
const KAFKA_PASSWORD = 'kafka-pw-Hn39sL2e';
const REGISTRY_PASSWORD = 'registry-pw-Tt51cB8y';
const SECRET_KEY = 'aws-secret-key-Pp62dV7n';
const ROTATED_PASSWORD = 'rotated-pw-Kk14fR9u';
const WRONG_SECRET = 'wrong-secret-Qa73gW5z';
const WRONG_TOKEN = 'wrong-token-Mm48jD1x';

const emu = useEmulator({ keySecret: KEY_SECRET, alertsToken: ALERTS_TOKEN }, { reset: false });

const kafkaPipe = (password: string) => ({
  name: 'orders',
  source: {
    kafka: {
      brokers: 'broker-1:9092',
      topics: 'orders',
      credentials: { username: 'ingest', password },
      schemaRegistry: {
        url: 'https://registry.example',
        credentials: { username: 'sr', password: REGISTRY_PASSWORD },
      },
    },
  },
  destination: { database: 'default', table: 'orders', columns: [{ name: 'id', type: 'UInt64' }] },
  fieldMappings: [{ sourceField: 'id', destinationField: 'id' }],
});

describe('no credential ever reaches a log line or an error', () => {
  it('holds for successful and failing calls of both APIs, retries and network failures included', async () => {
    const { logger, text } = capturedLogger();
    const errors: unknown[] = [];
    const keep = (p: Promise<unknown>) => p.catch((err: unknown) => errors.push(err));
    const client = managementClient(emu, { logger });
    const alerts = alertingClient(emu, { logger });
    const serverSecrets: string[] = [];

    // Successes that carry secrets both ways: the create answers the initial password, the reset a new one.
    const created = await client.createService({ name: 'secretive', provider: 'aws', region: 'us-east-1' });
    serverSecrets.push(created.password);
    const serviceId = created.service.id;
    await eventually(
      () => client.getService(serviceId),
      (s) => expect(s.state).toBe('running'),
    );
    serverSecrets.push((await client.resetServicePassword(serviceId)).password);
    const pipe = await client.createPipe(serviceId, kafkaPipe(KAFKA_PASSWORD));
    await eventually(
      () => client.getPipe(serviceId, pipe.id),
      (p) => expect(p.state).toBe('Running'),
    );
    await client.updatePipe(serviceId, pipe.id, {
      source: { kafka: { credentials: { username: 'ingest', password: ROTATED_PASSWORD } } },
    });
    const s3 = await client
      .createPipe(serviceId, {
        name: 'files',
        source: {
          objectStorage: {
            url: 'https://bucket/*.json',
            accessKey: { accessKeyId: 'AKIA1', secretKey: SECRET_KEY },
          },
        },
        destination: { database: 'default', table: 'files' },
      })
      .catch((err: unknown) => err);
    errors.push(s3);

    // Failures whose requests carry secrets: a 400 (bad body), a 424 (service not running), a retried 500,
    // an ambiguous drop, and wrong credentials on both APIs.
    await keep(client.createPipe(serviceId, { ...kafkaPipe(KAFKA_PASSWORD), fieldMappings: [] }));
    await forceState(emu, 'service', serviceId, 'idle');
    await keep(client.createPipe(serviceId, kafkaPipe(KAFKA_PASSWORD)));
    await forceState(emu, 'service', serviceId, 'running');
    await addFault(emu, {
      method: 'PATCH',
      route: `${ROUTES.service}/pipes/:pipeId`,
      status: 500,
      count: 10,
    });
    await keep(
      client.updatePipe(serviceId, pipe.id, {
        source: { kafka: { credentials: { username: 'ingest', password: ROTATED_PASSWORD } } },
      }),
    );
    await addFault(emu, { method: 'POST', route: `${ROUTES.service}/pipes`, drop: true, count: 1 });
    await keep(client.createPipe(serviceId, kafkaPipe(KAFKA_PASSWORD)));

    const { organizationId, keyId } = emu.credentials;
    const wrongKey = new ManagementClient(
      { baseUrl: emu.url, organizationId, keyId, keySecret: WRONG_SECRET },
      testOptions({ logger }),
    );
    await keep(wrongKey.createPipe(serviceId, kafkaPipe(KAFKA_PASSWORD)));
    await wrongKey.close();
    const wrongToken = new AlertingClient({ baseUrl: emu.url, token: WRONG_TOKEN }, testOptions({ logger }));
    await keep(wrongToken.listAlerts());
    await wrongToken.close();

    const alert = await alerts.createAlert({
      threshold: 1,
      interval: '1m',
      source: 'search',
      savedSearchId: 's-1',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: 'w' },
    });
    await addFault(emu, { method: 'GET', route: '/api/v2/alerts/:id', status: 500, count: 2 });
    await alerts.getAlert(alert.id);
    await client.close();
    await alerts.close();

    expect(errors.length).toBeGreaterThanOrEqual(6);
    const log = text();
    // The log is really there and really detailed (bodies at trace level), with redaction markers.
    expect(log).toContain('cloud request');
    expect(log).toContain('cloud response body');
    expect(log).toContain('retrying');
    expect(log).toContain('[REDACTED]');

    const basic = (secret: string) => Buffer.from(`${keyId}:${secret}`).toString('base64');
    const secrets = [
      KEY_SECRET,
      basic(KEY_SECRET),
      ALERTS_TOKEN,
      KAFKA_PASSWORD,
      REGISTRY_PASSWORD,
      SECRET_KEY,
      ROTATED_PASSWORD,
      WRONG_SECRET,
      basic(WRONG_SECRET),
      WRONG_TOKEN,
      ...serverSecrets,
    ];
    const errorTexts = errors.map(
      (err) => `${String(err)}\n${inspect(err, { depth: 10 })}\n${JSON.stringify(err)}`,
    );
    for (const secret of secrets) {
      expect(log, 'log').not.toContain(secret);
      for (const errorText of errorTexts) expect(errorText, 'error').not.toContain(secret);
    }
  });

  it('holds for a connectionString and for base64 forms of a secret echoed in an error', async () => {
    const AZURE = 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=YXp1cmUta2V5LVJ0NTU=;';
    const { logger, text } = capturedLogger();
    const client = managementClient(emu, { logger });
    const { service } = await client.createService({ name: 'azure', provider: 'azure', region: 'eastus2' });
    await eventually(
      () => client.getService(service.id),
      (s) => expect(s.state).toBe('running'),
    );
    const azurePipe = {
      name: 'blobs',
      source: {
        objectStorage: { url: 'https://acct.blob.core.windows.net/c/*.json', connectionString: AZURE },
      },
      destination: { database: 'default', table: 'blobs' },
    };
    const errors: unknown[] = [];
    await client.createPipe(service.id, azurePipe).catch((err: unknown) => errors.push(err));
    await client.close();

    // A server that echoes what it received, base64-encoded, into its error message.
    const echo = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const b64 = (value: string) => Buffer.from(value).toString('base64');
        const message = `BAD_REQUEST: header ${b64(req.headers.authorization ?? '')} body ${b64(body)} url ${Buffer.from(body).toString('base64url')}`;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 400, error: message, requestId: 'r-1' }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { organizationId, keyId } = emu.credentials;
    const echoed = new ManagementClient(
      {
        baseUrl: `http://127.0.0.1:${(echo.address() as AddressInfo).port}`,
        organizationId,
        keyId,
        keySecret: KEY_SECRET,
      },
      testOptions({ logger }),
    );
    await echoed.createPipe(service.id, azurePipe).catch((err: unknown) => errors.push(err));
    await echoed.close();
    await new Promise((resolve) => echo.close(resolve));

    expect(errors).toHaveLength(1);
    const log = text();
    expect(log).toContain('cloud request body');
    expect(log).toContain('cloud request failed');
    const errorText = errors.map((err) => `${String(err)}\n${inspect(err, { depth: 10 })}`).join('\n');
    expect(errorText).toContain('BAD_REQUEST');
    for (const secret of [AZURE, 'YXp1cmUta2V5LVJ0NTU=', KEY_SECRET]) {
      expect(log, 'log').not.toContain(secret);
      expect(errorText, 'error').not.toContain(secret);
      // Nor any base64 of it: decode every base64-looking word of the error and look inside.
      for (const word of errorText.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
        for (const decoded of [Buffer.from(word, 'base64'), Buffer.from(word, 'base64url')]) {
          expect(decoded.toString('latin1'), `decoded ${word}`).not.toContain(secret.slice(2, -2));
        }
      }
    }
  });
});
