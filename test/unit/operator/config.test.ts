import { describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/operator/command.ts';
import { OperatorConfig } from '../../../src/operator/config.ts';

/** The error `sluice run <args>` exits with (only for flags it refuses: valid ones would start the operator). */
async function runError(args: string[]): Promise<string> {
  let text = '';
  const command = runCommand()
    .exitOverride()
    .configureOutput({ writeErr: (chunk) => (text += chunk) });
  await command.parseAsync(args, { from: 'user' }).catch(() => undefined);
  return text;
}

describe('sluice run flags', () => {
  it('refuses every duration flag outside its range, naming the flag and the range', async () => {
    const refused = [
      ['--sync-interval', '720h', 'must be between 100ms and 24h (got "720h")'],
      ['--sync-interval', '1ms', 'must be between 100ms and 24h (got "1ms")'],
      ['--poll-interval', '5m', 'must be between 100ms and 30s (got "5m")'],
      ['--max-cloud-wait', '2h', 'must be between 10ms and 1m (got "2h")'],
      ['--graceful-shutdown-timeout', '1h', 'must be between 100ms and 10m (got "1h")'],
      ['--management-quota', '10/48h', 'its window must be between 100ms and 1h (got "48h")'],
      ['--alerting-quota', '100/1ms', 'its window must be between 100ms and 1h (got "1ms")'],
    ] as const;
    for (const [flag, value, problem] of refused) {
      const flags = { [flag.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]: value };
      const parsed = OperatorConfig.safeParse(flags);
      expect(parsed.success, `${flag} ${value}`).toBe(false);
      expect(parsed.error!.issues[0]!.message).toBe(problem);
    }
    const config = OperatorConfig.parse({
      syncInterval: '24h',
      pollInterval: '30s',
      managementQuota: '10/10s',
    });
    expect(config).toMatchObject({ syncInterval: 86_400_000, pollInterval: 30_000 });
  });

  it('says which flag is out of range when sluice run starts', async () => {
    expect(await runError(['--sync-interval', '720h'])).toContain(
      'error: --sync-interval: must be between 100ms and 24h (got "720h")',
    );
  });

  it('keeps the real defaults at time scale 1: 10m sync, 2s poll, 10/10s and 100/60s quotas', () => {
    expect(OperatorConfig.parse({})).toMatchObject({
      timeScale: 1,
      syncInterval: 600_000,
      pollInterval: 2_000,
      managementQuota: { requests: 10, windowMs: 10_000 },
      alertingQuota: { requests: 100, windowMs: 60_000 },
    });
  });

  it('divides the duration flags left at their defaults by --time-scale, and takes given ones as given', () => {
    expect(OperatorConfig.parse({ timeScale: '10' })).toMatchObject({
      timeScale: 10,
      syncInterval: 60_000,
      pollInterval: 200,
      managementQuota: { requests: 10, windowMs: 1_000 },
      alertingQuota: { requests: 100, windowMs: 6_000 },
    });
    expect(
      OperatorConfig.parse({ timeScale: 10, pollInterval: '1s', managementQuota: '10/10s' }),
    ).toMatchObject({ pollInterval: 1_000, managementQuota: { requests: 10, windowMs: 10_000 } });
  });

  it('refuses a time scale that is no number from 1 to 100, naming the flag', async () => {
    expect(await runError(['--time-scale', '0'])).toContain(
      'error: --time-scale: must be a number from 1 (real time) to 100 (got "0")',
    );
    expect(await runError(['--time-scale', 'fast'])).toContain(
      'error: --time-scale: must be a number from 1 (real time) to 100 (got "fast")',
    );
  });

  it('reads the namespaces that may use the operator credentials, and the allowed API hosts', () => {
    expect(
      OperatorConfig.parse({
        operatorCredentialsNamespaces: 'team-a, team-b',
        allowedApiHosts: 'api.example.com,*.example.net:8443',
      }),
    ).toMatchObject({
      operatorCredentialsNamespaces: ['team-a', 'team-b'],
      allowedApiHosts: ['api.example.com', '*.example.net:8443'],
    });
    const defaults = OperatorConfig.parse({});
    expect(defaults.operatorCredentialsNamespaces).toBeUndefined();
    expect(defaults.allowedApiHosts).toBeUndefined();
  });

  it('reads the ApiKey role allow-list by namespace, with * for the rest, and refuses an unknown role', async () => {
    expect(
      OperatorConfig.parse({ apiKeyRoles: 'team-a=developer+query_endpoints,*=query_endpoints' }).apiKeyRoles,
    ).toEqual({ 'team-a': ['developer', 'query_endpoints'], '*': ['query_endpoints'] });
    expect(OperatorConfig.parse({}).apiKeyRoles).toBeUndefined();
    expect(await runError(['--api-key-roles', 'team-a=owner'])).toContain(
      'error: --api-key-roles: "team-a=owner" names "owner": roles are admin, developer, query_endpoints',
    );
    expect(await runError(['--api-key-roles', 'team-a'])).toContain(
      'error: --api-key-roles: "team-a" is not namespace=role+role (or *=role+role)',
    );
  });

  it('refuses a bad namespace or host entry, and an empty list, naming the entry', async () => {
    expect(await runError(['--operator-credentials-namespaces', 'Team_A'])).toContain(
      'error: --operator-credentials-namespaces: "Team_A" is no namespace name',
    );
    expect(await runError(['--allowed-api-hosts', 'https://api.example.com/v1'])).toContain(
      'error: --allowed-api-hosts: "https://api.example.com/v1" is not a host, host:port, *.domain or * (for plain http: http://host…)',
    );
    expect(await runError(['--allowed-api-hosts', ' , '])).toContain(
      "error: --allowed-api-hosts: must name at least one (omit the flag to allow the hosts of the operator's credentials)",
    );
  });

  it('reads the clusters this operator may take over from, and refuses one that is no cluster name', async () => {
    expect(OperatorConfig.parse({ takeOverFrom: 'prod-eu, prod-us' }).takeOverFrom).toEqual([
      'prod-eu',
      'prod-us',
    ]);
    expect(OperatorConfig.parse({}).takeOverFrom).toBeUndefined();
    for (const name of ['Prod_EU', 'a/b', 'x'.repeat(64)]) {
      expect(await runError(['--take-over-from', name])).toContain(
        `error: --take-over-from: "${name}" is no cluster name`,
      );
    }
  });
});

describe('OperatorConfig namespace', () => {
  it('takes one namespace or a comma-separated list of them', () => {
    expect(OperatorConfig.parse({ namespace: 'team-a' }).namespace).toBe('team-a');
    expect(OperatorConfig.parse({ namespace: 'team-a,team-b' }).namespace).toBe('team-a,team-b');
  });

  it('refuses a list with an empty entry, a space or a name that is not a namespace, naming the field', () => {
    for (const namespace of ['team-a,', 'team-a, team-b', 'Team_A']) {
      const result = OperatorConfig.safeParse({ namespace });
      expect(result.success).toBe(false);
      expect(result.error!.issues[0]).toMatchObject({
        path: ['namespace'],
        message: 'must be a namespace or a comma-separated list of namespaces',
      });
    }
  });
});
