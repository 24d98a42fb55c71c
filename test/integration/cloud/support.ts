/**
 * The cloud clients against a real emulator over HTTP: start one, drive its control routes (faults, call log,
 * forced states), and build clients that point at it.
 */
import { expect } from 'vitest';
import { AlertingClient } from '../../../src/cloud/alerting-client.ts';
import type { ClientOptions } from '../../../src/cloud/http.ts';
import { ManagementClient } from '../../../src/cloud/management-client.ts';
import { QuotaRegistry } from '../../../src/cloud/quota.ts';
import type { CallRecord as Call } from '../../../src/emulator/call-log.ts';
import type { FaultRequest as Fault } from '../../../src/emulator/faults.ts';
import {
  resetEmulator,
  startTestEmulator,
  useEmulator,
  type Emulator,
  type EmulatorOptions,
} from '../../support/emulator.ts';
import { suiteValue } from '../../support/suite-value.ts';

export { resetEmulator, startTestEmulator, useEmulator, type Emulator, type EmulatorOptions };

async function control(emu: Emulator, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`control ${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export type { Call, Fault };

export const addFault = (emu: Emulator, fault: Fault) => control(emu, 'POST', '/faults', fault);
export const clearFaults = (emu: Emulator) => control(emu, 'DELETE', '/faults');
export const clearCalls = (emu: Emulator) => control(emu, 'DELETE', '/calls');
export const calls = async (emu: Emulator): Promise<Call[]> =>
  ((await control(emu, 'GET', '/calls')) as { calls: Call[] }).calls;
export const forceState = (
  emu: Emulator,
  kind: 'service' | 'pipe' | 'reversePrivateEndpoint' | 'alert',
  id: string,
  state: string,
) => control(emu, 'POST', '/state', { kind, id, state });

/** Route patterns as the emulator's call log names them. */
export const ROUTES = {
  services: '/v1/organizations/:organizationId/services',
  service: '/v1/organizations/:organizationId/services/:serviceId',
  alerts: '/api/v2/alerts',
} as const;

/** Options every test client starts from: its own quota registry (tests must not share budgets), fast retries. */
export function testOptions(overrides: ClientOptions = {}): ClientOptions {
  return {
    quota: false,
    quotaRegistry: new QuotaRegistry(),
    retry: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 4 },
    ...overrides,
  };
}

export function managementClient(emu: Emulator, options: ClientOptions = {}): ManagementClient {
  const { organizationId, keyId, keySecret } = emu.credentials;
  return new ManagementClient({ baseUrl: emu.url, organizationId, keyId, keySecret }, testOptions(options));
}

export function alertingClient(emu: Emulator, options: ClientOptions = {}): AlertingClient {
  return new AlertingClient({ baseUrl: emu.url, token: emu.credentials.alertsToken }, testOptions(options));
}

/** A management client of `emu` for the enclosing suite: made before its tests, closed after them. */
export const useManagementClient = (emu: Emulator, options: ClientOptions = {}) =>
  suiteValue(
    'the management client',
    async () => managementClient(emu, options),
    (client) => client.close(),
  );

/** An alerting client of `emu` for the enclosing suite: made before its tests, closed after them. */
export const useAlertingClient = (emu: Emulator, options: ClientOptions = {}) =>
  suiteValue(
    'the alerting client',
    async () => alertingClient(emu, options),
    (client) => client.close(),
  );

/** Polls `read` until `check` passes (or fails the test after `timeoutMs`). */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => void,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return value;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const serviceBody = (name = 'analytics') => ({
  name,
  provider: 'aws' as const,
  region: 'us-east-1' as const,
});

export async function runningService(client: ManagementClient, name = 'analytics'): Promise<string> {
  const { service } = await client.createService(serviceBody(name));
  await eventually(
    () => client.getService(service.id),
    (s) => expect(s.state).toBe('running'),
  );
  return service.id;
}
