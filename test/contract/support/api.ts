/**
 * Real-HTTP access to an in-process emulator for the contract tests: no mocks, only `fetch` against the port the
 * emulator listens on. Every helper returns the raw reply (`status`, `headers`, parsed `body`, `text`) so tests
 * assert on the wire exactly as a client sees it.
 */
import { expect } from 'vitest';
import { MANAGEMENT_ERROR_CODES } from '../../../src/cloud/schemas/index.ts';
import type { ManagementErrorStatus } from '../../../src/cloud/schemas/index.ts';
import type { CallRecord } from '../../../src/emulator/call-log.ts';
import type { FaultRequest as Fault } from '../../../src/emulator/faults.ts';
import { useEmulator, type Emulator, type EmulatorOptions } from '../../support/emulator.ts';

export {
  startTestEmulator,
  useEmulator,
  type Emulator,
  type EmulatorOptions,
} from '../../support/emulator.ts';
export { eventually } from '../../support/wait.ts';

/** JSON as received: tests index into it freely, the assertions are what checks its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Reply {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
  elapsedMs: number;
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RequestOptions {
  body?: unknown;
  /** Sent verbatim (no JSON encoding), with `Content-Type: application/json`. */
  rawBody?: string;
  /** Value of the Authorization header; omitted when undefined. */
  auth?: string | undefined;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function http(
  emu: Emulator,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.auth !== undefined) headers.authorization = options.auth;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const started = performance.now();
  const response = await fetch(emu.url + path, {
    method,
    headers,
    body: payload,
    signal: options.signal ?? AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  let body: Json = undefined;
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: response.status, headers: response.headers, body, text, elapsedMs };
}

export function basicAuth(keyId: string, keySecret: string): string {
  return `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`;
}

export interface ApiClient {
  /** `/v1/organizations/<org>` */
  prefix: string;
  get(path: string, options?: RequestOptions): Promise<Reply>;
  post(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  patch(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  put(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  delete(path: string, options?: RequestOptions): Promise<Reply>;
}

/** `prefix` and `auth` are read at each call, so a client can be made before its emulator has started. */
function client(emu: Emulator, prefix: () => string, auth: () => string | undefined): ApiClient {
  const call = (method: string, path: string, body: unknown, options: RequestOptions = {}) =>
    http(emu, method, prefix() + path, { auth: auth(), ...options, ...(body === undefined ? {} : { body }) });
  return {
    get prefix() {
      return prefix();
    },
    get: (path, options) => call('GET', path, undefined, options),
    post: (path, body, options) => call('POST', path, body, options),
    patch: (path, body, options) => call('PATCH', path, body, options),
    put: (path, body, options) => call('PUT', path, body, options),
    delete: (path, options) => call('DELETE', path, undefined, options),
  };
}

/**
 * Management API client; paths are relative to `/v1/organizations/<org>`. `auth: null` sends no
 * Authorization header; a string replaces it.
 */
export function mgmt(
  emu: Emulator,
  options: { auth?: string | null; organizationId?: string } = {},
): ApiClient {
  return client(
    emu,
    () => `/v1/organizations/${options.organizationId ?? emu.credentials.organizationId}`,
    () => {
      const { keyId, keySecret } = emu.credentials;
      return options.auth === undefined ? basicAuth(keyId, keySecret) : (options.auth ?? undefined);
    },
  );
}

/**
 * The alerting API's cloud path: paths are relative to `/v1/organizations/<org>/services/<serviceId>/clickstack`,
 * with the management key. `serviceId` is read at each call.
 */
export function clickstackCloud(
  emu: Emulator,
  serviceId: () => string,
  options: { auth?: string | null } = {},
): ApiClient {
  return client(
    emu,
    () => `/v1/organizations/${emu.credentials.organizationId}/services/${serviceId()}/clickstack`,
    () => {
      const { keyId, keySecret } = emu.credentials;
      return options.auth === undefined ? basicAuth(keyId, keySecret) : (options.auth ?? undefined);
    },
  );
}

/** Alerting API client; paths are relative to `/api/v2`. */
export function alerting(emu: Emulator, options: { auth?: string | null } = {}): ApiClient {
  return client(
    emu,
    () => '/api/v2',
    () =>
      options.auth === undefined ? `Bearer ${emu.credentials.alertsToken}` : (options.auth ?? undefined),
  );
}

export type { CallRecord, Fault };

/** The `/_emulator/*` control routes (loopback, no cloud auth). */
export function control(emu: Emulator) {
  const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const reply = await http(emu, method, path, body === undefined ? {} : { body });
    expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(200);
    return reply.body;
  };
  return {
    reset: () => ok('POST', '/_emulator/reset', {}),
    calls: (): Promise<{ calls: CallRecord[]; counts: Record<string, number> }> =>
      ok('GET', '/_emulator/calls'),
    clearCalls: () => ok('DELETE', '/_emulator/calls'),
    addFault: async (fault: Fault): Promise<string> => (await ok('POST', '/_emulator/faults', fault)).id,
    faults: async (): Promise<Json[]> => (await ok('GET', '/_emulator/faults')).faults,
    clearFaults: () => ok('DELETE', '/_emulator/faults'),
    setClock: (setting: { offsetMs?: number; precision?: 'millisecond' | 'second' }) =>
      ok('POST', '/_emulator/clock', setting),
    clock: () => ok('GET', '/_emulator/clock'),
    setFeatures: (features: { scheduledScaling?: boolean; scheduledUpgrades?: boolean }) =>
      ok('POST', '/_emulator/organization/features', features),
    forceState: (kind: 'service' | 'pipe' | 'reversePrivateEndpoint' | 'alert', id: string, state: string) =>
      ok('POST', '/_emulator/state', { kind, id, state }),
    holdTransitions: () => ok('POST', '/_emulator/transitions/hold', {}),
    releaseTransitions: () => ok('POST', '/_emulator/transitions/release', {}),
    /** While held: takes the steps waiting now; how many. */
    advanceTransitions: async (): Promise<number> =>
      (await ok('POST', '/_emulator/transitions/advance', {})).advanced,
  };
}

/** Asserts the management success envelope and returns `result`. */
export function expectOk(reply: Reply): Json {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toMatchObject({ status: 200 });
  expect(reply.body.requestId).toMatch(UUID_V4);
  expect(reply.body).toHaveProperty('result');
  return reply.body.result;
}

/** Asserts the alerting success envelope and returns `data`. */
export function expectData(reply: Reply): Json {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toHaveProperty('data');
  return reply.body.data;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Asserts the management error shape `{status, error: "<CODE>: <message>", requestId}`. `field` (when given)
 * must be the first word of the message, i.e. the error names the offending field; a RegExp is matched against
 * the text after `<CODE>: `. Returns the message after the code.
 */
export function expectMgmtError(
  reply: Reply,
  status: ManagementErrorStatus,
  field?: string | RegExp,
): string {
  const code = MANAGEMENT_ERROR_CODES[status];
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(reply.body, reply.text).toBeTypeOf('object');
  expect(reply.body.status).toBe(status);
  expect(reply.body.requestId).toMatch(UUID_V4);
  expect(reply.body.error).toBeTypeOf('string');
  expect(reply.body.error).toMatch(new RegExp(`^${code}: `));
  const message = String(reply.body.error).slice(code.length + 2);
  if (typeof field === 'string') expect(message).toMatch(new RegExp(`^${escapeRegExp(field)} `));
  else if (field) expect(message).toMatch(field);
  return message;
}

/** Asserts the alerting error shape `{message}` and, when given, that the message starts with the field. */
export function expectAlertError(
  reply: Reply,
  status: 400 | 404 | 409 | 500,
  field?: string | RegExp,
): string {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body, reply.text).toBeTypeOf('object');
  expect(reply.body.message).toBeTypeOf('string');
  const message: string = reply.body.message;
  if (typeof field === 'string') expect(message).toMatch(new RegExp(`^${escapeRegExp(field)} `));
  else if (field) expect(message).toMatch(field);
  return message;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` and records the distinct consecutive values it returns until `done(value)` holds; `first` (when
 * given) is the value already seen, e.g. in the reply that started the transition.
 */
export async function recordStates(
  read: () => Promise<string | undefined>,
  done: (state: string | undefined) => boolean,
  {
    first,
    timeoutMs = 5_000,
    intervalMs = 5,
  }: { first?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<Array<string | undefined>> {
  const seen: Array<string | undefined> = first === undefined ? [] : [first];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await read();
    if (seen.at(-1) !== state) seen.push(state);
    if (done(state)) return seen;
    if (Date.now() > deadline) {
      throw new Error(`state never settled; saw ${JSON.stringify(seen)}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Records every state a resource passes through, one step at a time, with the emulator's transitions held:
 * each state is read before the next step is let through, so none is missed however slowly the machine
 * answers. Call `control(emu).holdTransitions()` before the command that starts the plan.
 */
export async function stepStates(
  emu: Emulator,
  read: () => Promise<string | undefined>,
  done: (state: string | undefined) => boolean,
  { timeoutMs = 5_000 }: { timeoutMs?: number } = {},
): Promise<Array<string | undefined>> {
  const seen: Array<string | undefined> = [];
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const state = await read();
      if (seen.at(-1) !== state) seen.push(state);
      if (done(state)) return seen;
      // The next step falls due after the emulator's transition time: wait for it, then take it.
      while ((await control(emu).advanceTransitions()) === 0) {
        if (Date.now() > deadline) throw new Error(`state never settled; saw ${JSON.stringify(seen)}`);
        await sleep(5);
      }
    }
  } finally {
    await control(emu).releaseTransitions();
  }
}

/** Polls `read` for `ms` and asserts it returns `value` every time. */
export async function expectStays(read: () => Promise<unknown>, value: unknown, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  do {
    expect(await read()).toEqual(value);
    await sleep(10);
  } while (Date.now() < deadline);
}

/**
 * The suite's emulator (`useEmulator`: started before its tests, emptied before each, stopped after) with
 * clients of its management and alerting APIs and its control routes, all usable by name in hooks and tests.
 */
export function useContractEmulator(options: EmulatorOptions = {}, lifecycle: { reset?: boolean } = {}) {
  const emu = useEmulator(options, lifecycle);
  return { emu, api: mgmt(emu), alerts: alerting(emu), ctl: control(emu) };
}
