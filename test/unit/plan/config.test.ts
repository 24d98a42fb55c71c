import { describe, expect, it } from 'vitest';
import { PlanConfig } from '../../../src/plan/config.ts';

const keys = {
  organization: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
  keyId: 'key',
  keySecret: 'secret',
  managementUrl: 'https://api.example.dev',
};
const refused = (flags: Record<string, unknown>) =>
  PlanConfig.safeParse(flags).error?.issues.map((issue) => issue.path[0]);

describe('sluice plan flags', () => {
  it('plans as text at the API quota, in no namespace in particular, unless told otherwise', () => {
    const config = PlanConfig.parse({ credentialsSecret: 'sluice-system/sluice-cloud' });
    expect(config).toMatchObject({
      output: 'text',
      credentialsSecret: { namespace: 'sluice-system', name: 'sluice-cloud' },
      managementQuota: { requests: 10, windowMs: 10_000 },
    });
    expect(config.namespace).toBeUndefined();
  });

  it('takes a key as flags instead of a credentials Secret, whole or not at all', () => {
    expect(refused(keys)).toBeUndefined();
    expect(refused({ keyId: 'key' })).toEqual(['organization', 'keySecret', 'managementUrl']);
    expect(refused({ ...keys, credentialsSecret: 'a/b' })).toEqual(['organization']);
  });

  it('names each flag it refuses', () => {
    expect(refused({ output: 'yaml' })).toEqual(['output']);
    expect(refused({ namespace: 'Team A' })).toEqual(['namespace']);
    expect(refused({ credentialsSecret: 'no-slash' })).toEqual(['credentialsSecret']);
    expect(refused({ managementQuota: 'fast' })).toEqual(['managementQuota']);
  });
});
