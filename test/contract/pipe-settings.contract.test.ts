import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { PIPE_BOOLEAN_SETTINGS, PIPE_SETTING_BOUNDS } from '../../src/cloud/schemas/index.ts';
import type { PipeSettingKey } from '../../src/cloud/schemas/index.ts';
import { expectMgmtError, expectOk, useContractEmulator } from './support/api.ts';
import type { Json } from './support/api.ts';
import { createPipe, createRunningService, getPipe, pipePath, waitPipeState } from './support/fixtures.ts';
import type { PipeKind } from './support/fixtures.ts';

const { api } = useContractEmulator();
let serviceId: string;
let pipeId: string;

beforeEach(async () => {
  serviceId = (await createRunningService(api)).id;
  pipeId = (await createPipe(api, serviceId)).id;
  await waitPipeState(api, serviceId, pipeId, 'Running');
});

const INTEGER_SETTINGS = Object.entries(PIPE_SETTING_BOUNDS) as Array<
  [PipeSettingKey, { min: number; max: number }]
>;
const settingsPath = (pid = pipeId) => `${pipePath(serviceId, pid)}/settings`;
const putSettings = (body: unknown, pid = pipeId) => api.put(settingsPath(pid), body);
const getSettings = async (pid = pipeId): Promise<Json> => expectOk(await api.get(settingsPath(pid)));
/** A setting's value with "absent" and null read alike (both mean the service default). */
const valueOf = (settings: Json, key: string) => settings?.[key] ?? null;

describe('GET settings (extension)', () => {
  it('returns the settings object, equal to the pipe object settings', async () => {
    const settings = await getSettings();
    expect(settings).toBeTypeOf('object');
    expect(Array.isArray(settings)).toBe(false);
    expect((await getPipe(api, serviceId, pipeId)).settings).toEqual(settings);
  });

  it('of an unknown pipe is 404', async () => {
    expectMgmtError(await api.get(settingsPath(randomUUID())), 404);
  });
});

describe('PUT settings (operation 7): integer bounds, inclusive', () => {
  it.each(INTEGER_SETTINGS)('%s accepts its min and max', async (key, { min, max }) => {
    for (const value of [min, max]) {
      const result = expectOk(await putSettings({ [key]: value }));
      expect(result[key]).toBe(value);
      expect((await getSettings())[key]).toBe(value);
      expect((await getPipe(api, serviceId, pipeId)).settings[key]).toBe(value);
    }
  });

  it.each(INTEGER_SETTINGS)(
    '%s refuses min−1, max+1, a non-integer, a string and a boolean, naming the key, and changes nothing',
    async (key, { min, max }) => {
      expectOk(await putSettings({ [key]: max }));
      const before = await getSettings();
      for (const value of [min - 1, max + 1, min + 0.5, String(min), true]) {
        expectMgmtError(await putSettings({ [key]: value }), 400, key);
      }
      expect(await getSettings()).toEqual(before);
    },
  );

  it.each(INTEGER_SETTINGS)('%s: null resets to the service default', async (key, { min, max }) => {
    const defaults = await getSettings(); // a fresh pipe carries the defaults
    const value = min + 1 <= max ? min + 1 : min;
    expectOk(await putSettings({ [key]: value }));
    expect((await getSettings())[key]).toBe(value);
    expectOk(await putSettings({ [key]: null }));
    expect(valueOf(await getSettings(), key)).toEqual(valueOf(defaults, key));
  });
});

describe('PUT settings: booleans', () => {
  it.each(PIPE_BOOLEAN_SETTINGS)('%s accepts true, false and null', async (key) => {
    const defaults = await getSettings();
    for (const value of [true, false]) {
      expect(expectOk(await putSettings({ [key]: value }))[key]).toBe(value);
      expect((await getSettings())[key]).toBe(value);
    }
    expectOk(await putSettings({ [key]: null }));
    expect(valueOf(await getSettings(), key)).toEqual(valueOf(defaults, key));
  });

  it.each(PIPE_BOOLEAN_SETTINGS)('%s refuses 1, "true" and 0', async (key) => {
    for (const value of [1, 'true', 0]) expectMgmtError(await putSettings({ [key]: value }), 400, key);
  });
});

describe('PUT settings: merge semantics', () => {
  it('keys that are omitted keep their value', async () => {
    expectOk(await putSettings({ engine_max_threads: 8, engine_parallel_view_processing: true }));
    const result = expectOk(await putSettings({ streaming_max_insert_wait_ms: 1000 }));
    expect(result).toMatchObject({
      engine_max_threads: 8,
      engine_parallel_view_processing: true,
      streaming_max_insert_wait_ms: 1000,
    });
    expect(await getSettings()).toMatchObject({
      engine_max_threads: 8,
      engine_parallel_view_processing: true,
      streaming_max_insert_wait_ms: 1000,
    });
  });

  it('null resets only the key it names', async () => {
    const defaults = await getSettings();
    expectOk(await putSettings({ engine_max_threads: 8, object_storage_concurrency: 3 }));
    expectOk(await putSettings({ engine_max_threads: null }));
    const after = await getSettings();
    expect(valueOf(after, 'engine_max_threads')).toEqual(valueOf(defaults, 'engine_max_threads'));
    expect(after.object_storage_concurrency).toBe(3);
  });

  it('an empty object is refused with 400', async () => {
    const before = await getSettings();
    expectMgmtError(await putSettings({}), 400);
    expect(await getSettings()).toEqual(before);
  });

  it('a key outside the contract with an object value is refused, naming it', async () => {
    expectMgmtError(
      await putSettings({ engine_max_threads: 4, max_threads: { value: 4 } }),
      400,
      'max_threads',
    );
  });

  it('one bad key in a body refuses the whole body (nothing changes)', async () => {
    const before = await getSettings();
    expectMgmtError(
      await putSettings({
        engine_max_threads: 4,
        object_storage_concurrency: PIPE_SETTING_BOUNDS.object_storage_concurrency.max + 1,
      }),
      400,
      'object_storage_concurrency',
    );
    expect(await getSettings()).toEqual(before);
  });

  it('the result is the whole settings object after the merge', async () => {
    expectOk(await putSettings({ engine_max_threads: 8 }));
    const result = expectOk(await putSettings({ engine_max_insert_threads: 2 }));
    expect(result).toEqual(await getSettings());
  });

  it('PUT on an unknown pipe is 404', async () => {
    expectMgmtError(await putSettings({ engine_max_threads: 1 }, randomUUID()), 404);
  });
});

describe('every setting is accepted on every pipe kind', () => {
  const all = (pick: 'min' | 'max') => ({
    ...Object.fromEntries(INTEGER_SETTINGS.map(([key, bounds]) => [key, bounds[pick]])),
    ...Object.fromEntries(PIPE_BOOLEAN_SETTINGS.map((key) => [key, pick === 'max'])),
  });

  it.each(['kafka', 'kinesis', 'objectStorage', 'continuousObjectStorage', 'postgres'] as PipeKind[])(
    '%s',
    async (kind) => {
      const pipe = await createPipe(api, serviceId, kind);
      for (const pick of ['min', 'max'] as const) {
        const body = all(pick);
        expect(expectOk(await putSettings(body, pipe.id))).toMatchObject(body);
        expect(await getSettings(pipe.id)).toMatchObject(body);
      }
      const created = await createPipe(api, serviceId, kind, { settings: all('max') });
      expect(created.settings).toMatchObject(all('max'));
    },
  );
});
