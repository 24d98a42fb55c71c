import { describe, expect, it } from 'vitest';
import {
  collectSecrets,
  encodedForms,
  REDACTED,
  redactSecrets,
  scrub,
} from '../../../src/cloud/redaction.ts';
import { pipeBodyWithCredentials as pipeBody } from '../../support/pipe-request-body.ts';

describe('redactSecrets', () => {
  it('replaces credential fields at any depth and leaves everything else', () => {
    expect(redactSecrets(pipeBody)).toEqual({
      name: 'orders',
      source: {
        kafka: {
          brokers: 'b:9092',
          topics: 'orders',
          credentials: REDACTED,
          schemaRegistry: { url: 'https://sr', credentials: REDACTED },
        },
      },
      destination: { database: 'db', table: 't' },
    });
    expect(redactSecrets({ service: { id: 's' }, password: 'p' })).toEqual({
      service: { id: 's' },
      password: REDACTED,
    });
    expect(redactSecrets([{ accessKey: { accessKeyId: 'a', secretKey: 'b' } }])).toEqual([
      { accessKey: REDACTED },
    ]);
    expect(redactSecrets({ headers: { Authorization: 'Basic abc' } })).toEqual({
      headers: { Authorization: REDACTED },
    });
  });

  it('replaces a field named like a credential that no list names, such as a pipe setting', () => {
    const body = { settings: { sasl_password: 'pw-1', 'ssl.keystore.password': 'pw-2', max_block_size: 1 } };
    expect(redactSecrets(body)).toEqual({
      settings: { sasl_password: REDACTED, 'ssl.keystore.password': REDACTED, max_block_size: 1 },
    });
    expect([...collectSecrets(body)].sort()).toEqual(['pw-1', 'pw-2']);
  });

  it('does not treat identifiers that merely contain a secret-ish word as secrets', () => {
    expect(redactSecrets({ openApiKeys: ['k1'], keyId: 'id' })).toEqual({ openApiKeys: ['k1'], keyId: 'id' });
  });
});

describe('collectSecrets and scrub', () => {
  it('collects every value under a credential field', () => {
    expect([...collectSecrets(pipeBody)].sort()).toEqual([
      'kafka-pass-123',
      'kafka-user',
      'sr-pass-456',
      'sr-user',
    ]);
  });

  it('removes secrets and their encoded forms from a text', () => {
    const secrets = ['p@ss word!', 'tok-123456'];
    expect(scrub('bad value p@ss word! and p%40ss%20word! and tok-123456', secrets)).toBe(
      `bad value ${REDACTED} and ${REDACTED} and ${REDACTED}`,
    );
    expect(scrub('abc', ['ab'])).toBe('abc');
  });

  const AZURE = 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=c2VjcmV0LWtleQ+/==;';

  it('treats a connectionString (an Azure key, a pipe credential) as a secret', () => {
    const body = { source: { objectStorage: { url: 'https://x', connectionString: AZURE } } };
    expect(redactSecrets(body)).toEqual({
      source: { objectStorage: { url: 'https://x', connectionString: REDACTED } },
    });
    expect([...collectSecrets(body)]).toEqual([AZURE]);
  });

  it('removes the base64 form of a secret, standard or URL-safe, wherever it sits in an encoded text', () => {
    const secret = 'kafka-pw-Hn39sL2e?>';
    for (const before of ['', 'u', 'us', 'user:', 'Basic header of ']) {
      for (const after of ['', '!', 'trailing bytes']) {
        const encoded = Buffer.from(`${before}${secret}${after}`).toString('base64');
        const urlSafe = Buffer.from(`${before}${secret}${after}`).toString('base64url');
        for (const text of [`echoed ${encoded} back`, `echoed ${urlSafe} back`]) {
          const scrubbed = scrub(text, [secret]);
          expect(scrubbed).toContain(REDACTED);
          // Whatever is left cannot be decoded into the secret.
          for (const word of scrubbed.split(/\[REDACTED\]|\s/)) {
            expect(Buffer.from(word, 'base64').toString('latin1')).not.toContain(secret.slice(1, -1));
          }
        }
      }
    }
    expect(scrub('nothing encoded here', [secret])).toBe('nothing encoded here');
  });

  it('lists each base64 run once per offset, none shorter than a secret may be', () => {
    expect([...encodedForms('abcdefgh')]).toEqual(
      expect.arrayContaining(['abcdefgh', 'YWJjZGVmZ2', 'FiY2RlZmdo', 'hYmNkZWZna']),
    );
    expect([...encodedForms('abcd')].every((form) => form.length >= 4)).toBe(true);
  });
});

describe('URLs that carry a user and password', () => {
  const url = 'https://ingest:hunter2-pass@broker.example:9093/path?x=1';

  it('lose their user and password in logged bodies, under whatever field name', () => {
    const body = { bootstrapUrl: url, nested: [{ endpoint: 'postgres://app:pa55word@db.internal/orders' }] };
    const shown = JSON.stringify(redactSecrets(body));
    expect(shown).not.toContain('hunter2-pass');
    expect(shown).not.toContain('pa55word');
    expect(shown).toContain('https://[REDACTED]@broker.example:9093/path?x=1');
  });

  it('give their password, even one holding @, to the values scrubbed from error text in any encoding', () => {
    const secrets = collectSecrets({ sink: 'https://user:p@ss-w0rd@host.example/' });
    expect([...secrets]).toContain('p@ss-w0rd');
    const text = `failed: ${Buffer.from('user:p@ss-w0rd').toString('base64')} and ${encodeURIComponent('p@ss-w0rd')}`;
    expect(scrub(text, secrets)).not.toMatch(/cEBzcy13MHJk|p%40ss-w0rd/);
  });

  it('are scrubbed from any text, known values or not; a URL without a user stays as it is', () => {
    expect(scrub(`cannot reach ${url}`, [])).toBe(
      'cannot reach https://[REDACTED]@broker.example:9093/path?x=1',
    );
    expect(scrub('see https://docs.example/a@b and user@example.com', [])).toBe(
      'see https://docs.example/a@b and user@example.com',
    );
  });
});
