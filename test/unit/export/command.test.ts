import { describe, expect, it } from 'vitest';
import { exportCommand } from '../../../src/export/command.ts';
import { ExportConfig } from '../../../src/export/config.ts';
import { fieldPolicyFor } from '../../../src/export/field-policy.ts';

const keys = {
  organization: '5f0c8e4a-1b2c-4d3e-8f90-123456789abc',
  keyId: 'key',
  keySecret: 'secret',
  managementUrl: 'https://api.example.dev',
};

/** The config `sluice export <args>` runs with: its command line as commander and the schema read it. */
const configOf = (...args: string[]) => {
  const command = exportCommand();
  command.parseOptions(args);
  return ExportConfig.parse(command.opts());
};
const keyFlags = [
  '--organization',
  keys.organization,
  '--key-id',
  'key',
  '--key-secret',
  'secret',
  '--management-url',
  keys.managementUrl,
];

describe('sluice export flags', () => {
  it('takes -n as --namespace, as sluice plan does', () => {
    expect(configOf(...keyFlags, '-n', 'team-a').namespace).toBe('team-a');
    expect(configOf(...keyFlags, '--namespace', 'team-b').namespace).toBe('team-b');
  });

  it('takes --credentials-ref as a Secret name, refusing one that is no object name', () => {
    expect(configOf(...keyFlags, '--credentials-ref', 'team-a-cloud').credentialsRef).toBe('team-a-cloud');
    expect(
      ExportConfig.safeParse({ ...keys, credentialsRef: 'Team A' }).error?.issues.map(
        (issue) => issue.path[0],
      ),
    ).toEqual(['credentialsRef']);
  });

  it('takes key flags, kinds and tag selectors', () => {
    const config = ExportConfig.parse({ ...keys, kind: ['Pipe', 'Alert'], selector: ['tag:team=data'] });
    expect([...config.kinds]).toEqual(['Pipe', 'Alert']);
    expect(config.tags).toEqual([{ key: 'team', value: 'data' }]);
    expect(config.output).toBe('yaml');
  });

  it('exports every kind by default and takes a credentials Secret instead of keys', () => {
    const config = ExportConfig.parse({ credentialsSecret: 'sluice-system/sluice-cloud' });
    expect(config.kinds.size).toBe(10);
    expect(config.credentialsSecret).toEqual({ namespace: 'sluice-system', name: 'sluice-cloud' });
  });

  it('names each flag it refuses', () => {
    const paths = (flags: Record<string, unknown>) =>
      ExportConfig.safeParse(flags).error?.issues.map((issue) => issue.path[0]);
    // No credentials flag at all: the running operator's Secret is read from the cluster.
    expect(paths({})).toBeUndefined();
    expect(paths({ organization: keys.organization })).toEqual(['keyId', 'keySecret', 'managementUrl']);
    expect(paths({ ...keys, kind: ['Service'] })).toEqual(['kind']);
    expect(paths({ ...keys, selector: ['team=data'] })).toEqual(['selector']);
    expect(paths({ ...keys, credentialsSecret: 'ns/name' })).toEqual(['organization']);
  });

  it('takes --field-policy entries as one policy, and writes each kind only the fields it has', () => {
    const config = ExportConfig.parse({
      ...keys,
      fieldPolicy: [
        'additive=ipAccessList',
        'additive=tags',
        'reportOnly=scaling.replicas',
        'reportOnly=name',
      ],
    });
    expect(config.fieldPolicy).toEqual({
      additive: ['ipAccessList', 'tags'],
      reportOnly: ['scaling.replicas', 'name'],
    });
    expect(fieldPolicyFor('DatabaseService', config.fieldPolicy!)).toEqual({
      additive: ['ipAccessList', 'tags'],
      reportOnly: ['name'],
    });
    expect(fieldPolicyFor('Pipe', config.fieldPolicy!)).toEqual({ reportOnly: ['scaling.replicas', 'name'] });
    expect(fieldPolicyFor('ReversePrivateEndpoint', config.fieldPolicy!)).toBeUndefined();
  });

  it('refuses a --field-policy entry no exported kind takes, naming it', () => {
    const messages = (fieldPolicy: string[]) =>
      ExportConfig.safeParse({ ...keys, fieldPolicy }).error?.issues.map((issue) => [
        issue.path[0],
        issue.message,
      ]);
    expect(messages(['additive=fieldMappings'])).toEqual([
      ['fieldPolicy', 'additive=fieldMappings: no exported kind takes fieldMappings as additive'],
    ]);
    expect(messages(['reportOnly=region'])).toEqual([
      ['fieldPolicy', 'reportOnly=region: no exported kind takes region as reportOnly'],
    ]);
    expect(messages(['ignore=tags'])?.[0]?.[0]).toBe('fieldPolicy');
  });
});
