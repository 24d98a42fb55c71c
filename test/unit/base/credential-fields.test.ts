import { describe, expect, it } from 'vitest';
import { isCredentialField, nameWords } from '../../../src/base/credential-fields.ts';

describe('isCredentialField', () => {
  it('knows a credential by a word of its name, however the name is written', () => {
    for (const name of [
      'password',
      'sasl_password',
      'saslPassword',
      'SASL_PASSWORD',
      'sasl-password',
      'ssl.key.password',
      'ssl.keystore.password',
      'SASLPassword',
      'dbpassword',
      'password2',
      'clientSecret',
      'client_secret',
      'keySecret',
      'keysecret',
      'authToken',
      'alertsToken',
      'alertstoken',
      'refresh_token',
      'credentials',
      'sasl.jaas.config',
      'basic.auth.user.info',
      'api_key',
      'apiKey',
      'x-api-key',
      'privateKey',
      'ssl_key',
      'secretKey',
      'accessKey',
      'accessKeyId',
      'Authorization',
      'connectionString',
      'set-cookie',
      'ssl.keystore.key',
      'SSL_KEYSTORE_KEY',
      'dsn',
      'sentry_dsn',
      'databaseDsn',
    ]) {
      expect(isCredentialField(name), name).toBe(true);
    }
  });

  it('leaves names that only point at a credential, and keys that are no secret, readable', () => {
    for (const name of [
      'keyId',
      'key_id',
      'key',
      'partition_key',
      'sort.key',
      'openApiKeys',
      'tokenUrl',
      'token_endpoint_url',
      'secretName',
      'credentialsRef',
      'password_file',
      'tokenizer',
      'username',
      'brokers',
      'topics',
      'max_block_size',
      'auth_mode',
    ]) {
      expect(isCredentialField(name), name).toBe(false);
    }
  });
});

describe('nameWords', () => {
  it('splits snake, kebab, dotted and camel case, and digits', () => {
    expect(nameWords('sasl_password')).toEqual(['sasl', 'password']);
    expect(nameWords('SASLPassword')).toEqual(['sasl', 'password']);
    expect(nameWords('ssl.key-password2')).toEqual(['ssl', 'key', 'password', '2']);
    expect(nameWords('openApiKeys')).toEqual(['open', 'api', 'keys']);
  });
});
