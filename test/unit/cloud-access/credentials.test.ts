import { describe, expect, it } from 'vitest';
import {
  alertingConfig,
  credentialsFromFlags,
  managementConfig,
  missingKeys,
} from '../../../src/cloud-access/credentials.ts';

describe('credentials: the keys of a credentials Secret, read in one place', () => {
  it('names the keys each API lacks, an empty value counting as missing', () => {
    const data = { organizationId: 'o', keyId: 'k', keySecret: '', alertsUrl: 'http://a' };
    expect(missingKeys(data, 'management')).toEqual(['keySecret', 'managementUrl']);
    expect(missingKeys(data, 'alerting')).toEqual(['alertsToken']);
  });

  it('turns complete keys into each client configuration', () => {
    const data = {
      organizationId: 'o',
      keyId: 'k',
      keySecret: 's',
      managementUrl: 'http://m',
      alertsUrl: 'http://a',
      alertsToken: 't',
    };
    expect(managementConfig(data)).toEqual({
      baseUrl: 'http://m',
      organizationId: 'o',
      keyId: 'k',
      keySecret: 's',
    });
    expect(alertingConfig(data)).toEqual({ baseUrl: 'http://a', token: 't' });
  });

  it('reads the flags that stand in for a Secret as the same keys, leaving out the flags not given', () => {
    const data = credentialsFromFlags({
      organization: 'o',
      keyId: 'k',
      keySecret: 's',
      managementUrl: 'http://m',
    });
    expect(data).toEqual({ organizationId: 'o', keyId: 'k', keySecret: 's', managementUrl: 'http://m' });
    expect(missingKeys(data, 'management')).toEqual([]);
    expect(missingKeys(data, 'alerting')).toEqual(['alertsUrl', 'alertsToken']);
  });
});
