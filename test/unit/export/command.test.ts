import { describe, expect, it } from 'vitest';
import { ExportConfig } from '../../../src/export/command.ts';

const keys = {
  organization: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
  keyId: 'key',
  keySecret: 'secret',
  managementUrl: 'https://api.example.dev',
};

describe('sluice export flags', () => {
  it('takes key flags, kinds and tag selectors', () => {
    const config = ExportConfig.parse({ ...keys, kind: ['Pipe', 'Alert'], selector: ['tag:team=data'] });
    expect([...config.kinds]).toEqual(['Pipe', 'Alert']);
    expect(config.tags).toEqual([{ key: 'team', value: 'data' }]);
    expect(config.output).toBe('yaml');
  });

  it('exports every kind by default and takes a credentials Secret instead of keys', () => {
    const config = ExportConfig.parse({ credentialsSecret: 'sluice-system/sluice-cloud' });
    expect(config.kinds.size).toBe(5);
    expect(config.credentialsSecret).toEqual({ namespace: 'sluice-system', name: 'sluice-cloud' });
  });

  it('names each flag it refuses', () => {
    const paths = (flags: Record<string, unknown>) =>
      ExportConfig.safeParse(flags).error?.issues.map((issue) => issue.path[0]);
    expect(paths({})).toEqual(['organization', 'keyId', 'keySecret', 'managementUrl']);
    expect(paths({ ...keys, kind: ['Service'] })).toEqual(['kind']);
    expect(paths({ ...keys, selector: ['team=data'] })).toEqual(['selector']);
    expect(paths({ ...keys, credentialsSecret: 'ns/name' })).toEqual(['organization']);
  });
});
