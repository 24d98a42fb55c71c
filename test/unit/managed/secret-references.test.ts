import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveDigestKey, digestOf } from '../../../src/managed/secret-digests.ts';
import {
  resolveSecrets,
  type KeptSecretRecord,
  type SecretSnapshot,
  type SecretUse,
} from '../../../src/managed/secret-references.ts';
import type { ManagedObject } from '../../../src/managed/types.ts';

const CREDENTIALS = 'source.kafka.credentialsSecretRef';
const CONNECTION_STRING = 'source.objectStorage.connectionStringSecretRef';
const KEY = deriveDigestKey('api-key-secret-one');
const OTHER_KEY = deriveDigestKey('api-key-secret-two');

const resource = {
  metadata: { name: 'orders', namespace: 'team', uid: 'u-1' },
  spec: {},
} as ManagedObject;

const kafkaUse: SecretUse = { field: CREDENTIALS, secretName: 'kafka-user', keys: ['username', 'password'] };
const connectionUse: SecretUse = {
  field: CONNECTION_STRING,
  secretName: 'azure',
  keys: ['connectionString'],
  replaceable: false,
};

/** A Secret cache holding one version of each Secret. */
const cache = (secrets: Record<string, SecretSnapshot>) => ({
  get: (_ns: string, name: string) => secrets[name],
});

const kafkaSecret = (
  resourceVersion: string,
  data: Record<string, string>,
): Record<string, SecretSnapshot> => ({
  'kafka-user': { resourceVersion, data },
});
const FIRST = { username: 'ingest', password: 'pass-one' };

/** What status keeps after the values of `secrets` reached the cloud. */
function recorded(secrets: Record<string, SecretSnapshot>, uses = [kafkaUse], key = KEY): KeptSecretRecord {
  return { digests: resolveSecrets(resource, uses, cache(secrets), {}, key).digests };
}

const resolve = (
  secrets: Record<string, SecretSnapshot>,
  kept: KeptSecretRecord,
  uses: readonly SecretUse[] = [kafkaUse],
  key = KEY,
) => resolveSecrets(resource, uses, cache(secrets), kept, key);

describe('rotation by content', () => {
  const kept = recorded(kafkaSecret('100', FIRST));

  it('a metadata-only change of the Secret (new resourceVersion, same values) is no rotation', () => {
    const secrets = resolve(kafkaSecret('101', FIRST), kept);
    expect(secrets.rotated).toEqual(new Set());
    expect(secrets.rebaselined).toEqual([]);
    // The new version is recorded, so a later key change can still tell the values unchanged.
    expect(secrets.digests!.fields[CREDENTIALS]!.resourceVersion).toBe('101');
  });

  it('a changed value of a key the field uses is a rotation', () => {
    const secrets = resolve(kafkaSecret('102', { ...FIRST, password: 'pass-two' }), kept);
    expect(secrets.rotated).toEqual(new Set([CREDENTIALS]));
    expect(secrets.values(CREDENTIALS)).toEqual({ username: 'ingest', password: 'pass-two' });
  });

  it('a change of a key the field does not use is no rotation', () => {
    const secrets = resolve(kafkaSecret('103', { ...FIRST, note: 'rotated by the vault' }), kept);
    expect(secrets.rotated).toEqual(new Set());
  });

  it('values restored after a change are no rotation any more', () => {
    const changed = resolve(kafkaSecret('104', { ...FIRST, password: 'pass-two' }), kept);
    expect(changed.rotated.size).toBe(1);
    expect(resolve(kafkaSecret('105', FIRST), kept).rotated).toEqual(new Set());
  });

  it('a field referenced since the last record is a rotation: its values were never sent', () => {
    const secrets = {
      ...kafkaSecret('100', FIRST),
      azure: { resourceVersion: '7', data: { connectionString: 'c' } },
    };
    expect(resolve(secrets, kept, [kafkaUse, connectionUse]).rotated).toEqual(new Set([CONNECTION_STRING]));
  });

  it('the same Secret under another field name counts for that field alone', () => {
    const registry: SecretUse = { ...kafkaUse, field: 'source.kafka.schemaRegistry.credentialsSecretRef' };
    const both = recorded(kafkaSecret('100', FIRST), [kafkaUse, registry]);
    const secrets = resolve(kafkaSecret('106', { ...FIRST, password: 'pass-two' }), both, [
      kafkaUse,
      registry,
    ]);
    expect(secrets.rotated).toEqual(new Set([CREDENTIALS, registry.field]));
    expect(secrets.digests!.fields[CREDENTIALS]!.digest).not.toBe(
      secrets.digests!.fields[registry.field]!.digest,
    );
  });
});

describe('a new digest key', () => {
  const kept = recorded(kafkaSecret('100', FIRST));

  it('re-baselines when the Secret did not change since the record: nothing rotated, the reason logged', () => {
    const secrets = resolve(kafkaSecret('100', { ...FIRST }), kept, [kafkaUse], OTHER_KEY);
    expect(secrets.rotated).toEqual(new Set());
    expect(secrets.rebaselined).toEqual([
      { field: CREDENTIALS, why: expect.stringContaining('digest key changed') },
    ]);
    expect(secrets.digests!.keyId).toBe(OTHER_KEY.id);
  });

  it('sends replaceable values again when the Secret changed since the record, and never a connection string', () => {
    const changed = { ...kafkaSecret('110', { ...FIRST, password: 'pass-two' }) };
    expect(resolve(changed, kept, [kafkaUse], OTHER_KEY).rotated).toEqual(new Set([CREDENTIALS]));

    const azure = (resourceVersion: string) => ({
      azure: { resourceVersion, data: { connectionString: 'c-1' } },
    });
    const keptAzure = recorded(azure('20'), [connectionUse]);
    const secrets = resolve(azure('21'), keptAzure, [connectionUse], OTHER_KEY);
    expect(secrets.rotated).toEqual(new Set());
    expect(secrets.rebaselined).toEqual([{ field: CONNECTION_STRING, why: expect.any(String) }]);
  });
});

describe('objects without digests', () => {
  it('an adopted object (nothing recorded) takes the current values as what the cloud has', () => {
    const secrets = resolve(kafkaSecret('100', FIRST), {});
    expect(secrets.rotated).toEqual(new Set());
    expect(secrets.rebaselined).toEqual([{ field: CREDENTIALS, why: expect.stringContaining('adopted') }]);
    expect(secrets.digests!.fields[CREDENTIALS]).toMatchObject({
      secret: 'kafka-user',
      resourceVersion: '100',
    });
  });

  it('a value the spec asks the cloud to take (sendWhenUnrecorded) is sent when nothing recorded it', () => {
    const password: SecretUse = { ...kafkaUse, sendWhenUnrecorded: true };
    expect(resolve(kafkaSecret('100', FIRST), {}, [password]).rotated).toEqual(new Set([CREDENTIALS]));
    // Under a digest key that changed since, a record of it counts: only a changed Secret sends it again.
    const underOldKey = recorded(kafkaSecret('100', FIRST), [password], OTHER_KEY);
    expect(resolve(kafkaSecret('100', FIRST), underOldKey, [password]).rotated).toEqual(new Set());
    // Once recorded, only a change of its values sends it again.
    const sent = recorded(kafkaSecret('100', FIRST), [password]);
    expect(resolve(kafkaSecret('101', FIRST), sent, [password]).rotated).toEqual(new Set());
  });

  it('an earlier version’s resourceVersion that still matches proves the values the same', () => {
    const secrets = resolve(kafkaSecret('100', FIRST), { versions: { 'kafka-user': '100' } });
    expect(secrets.rotated).toEqual(new Set());
    expect(secrets.digests!.keyId).toBe(KEY.id);
  });

  it('an earlier version’s resourceVersion that no longer matches resends replaceable values only', () => {
    const legacy = { versions: { 'kafka-user': '90', azure: '20' } };
    const secrets = resolve(
      { ...kafkaSecret('100', FIRST), azure: { resourceVersion: '21', data: { connectionString: 'c' } } },
      legacy,
      [kafkaUse, connectionUse],
    );
    // A connection string stuck in CannotRotate by a label under the old rule is freed, not stuck again.
    expect(secrets.rotated).toEqual(new Set([CREDENTIALS]));
    expect(secrets.rebaselined.map((r) => r.field)).toEqual([CONNECTION_STRING]);
  });
});

describe('secret digests', () => {
  const values = { password: 'hunter2' };

  it('is a keyed hash: never the plain SHA-256 of a value, and another key gives another digest', () => {
    const digest = digestOf(KEY, CREDENTIALS, values);
    for (const plain of [values.password, JSON.stringify(values), JSON.stringify([CREDENTIALS, values])]) {
      expect(digest).not.toBe(createHash('sha256').update(plain).digest('base64url'));
      expect(digest).not.toBe(createHash('sha256').update(plain).digest('hex'));
    }
    expect(digestOf(OTHER_KEY, CREDENTIALS, values)).not.toBe(digest);
    expect(digestOf(KEY, CREDENTIALS, { password: 'hunter3' })).not.toBe(digest);
  });

  it('derives the same key from the same credentials (restarts, hand-overs) and shows only a fingerprint', () => {
    const again = deriveDigestKey('api-key-secret-one');
    expect(again.id).toBe(KEY.id);
    expect(digestOf(again, CREDENTIALS, values)).toBe(digestOf(KEY, CREDENTIALS, values));
    expect(OTHER_KEY.id).not.toBe(KEY.id);
    expect(KEY.id).not.toContain('api-key-secret-one');
  });

  it('status keeps no value and no plain hash of one', () => {
    const record = JSON.stringify(recorded(kafkaSecret('1', { username: 'ingest', password: 'hunter2' })));
    expect(record).not.toContain('hunter2');
    expect(record).not.toContain(createHash('sha256').update('hunter2').digest('hex'));
    expect(record).not.toContain(createHash('sha256').update('hunter2').digest('base64url'));
  });
});

describe('missing Secrets', () => {
  it('names the Secret, the key and the field', () => {
    expect(() => resolve({}, {})).toThrow(`Secret team/kafka-user (${CREDENTIALS}) not found`);
    expect(() => resolve(kafkaSecret('1', { username: 'ingest' }), {})).toThrow(
      `Secret team/kafka-user (${CREDENTIALS}) has no key password`,
    );
  });
});
