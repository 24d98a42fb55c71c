import { mkdtempSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fromFile, loadKubeAccess } from '../../../src/kube/kube-config.ts';

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-config-'));
  writeFileSync(join(dir, 'client.crt'), 'CERT');
  const path = join(dir, 'config');
  writeFileSync(
    path,
    stringify({
      'current-context': 'b',
      contexts: [
        { name: 'a', context: { cluster: 'other', user: 'other' } },
        { name: 'b', context: { cluster: 'c', user: 'u' } },
      ],
      clusters: [
        { name: 'other', cluster: { server: 'https://other:6443' } },
        {
          name: 'c',
          cluster: {
            server: 'https://api:6443',
            'certificate-authority-data': Buffer.from('CA').toString('base64'),
            ...cluster,
          },
        },
      ],
      users: [{ name: 'u', user }],
    }),
  );
  return path;
}

describe('kubeconfig loading', () => {
  it('takes the current context’s server, CA and token, with an agent kube-http can share', async () => {
    const access = fromFile(kubeconfig({ token: 'secret-token' }))!;
    const options: https.RequestOptions = {};
    await access.applyToHTTPSOptions(options);

    expect(access.getCurrentCluster()).toEqual({ server: 'https://api:6443' });
    expect(String(options.ca)).toBe('CA');
    expect(options.headers).toEqual({ authorization: 'Bearer secret-token' });
    expect(options.agent).toBeInstanceOf(https.Agent);
  });

  it('reads a client certificate named relative to the kubeconfig, and honours insecure-skip-tls-verify', async () => {
    const access = fromFile(
      kubeconfig(
        { 'client-certificate': 'client.crt', 'client-key-data': Buffer.from('KEY').toString('base64') },
        { 'insecure-skip-tls-verify': true },
      ),
    )!;
    const options: https.RequestOptions = {};
    await access.applyToHTTPSOptions(options);

    expect([String(options.cert), String(options.key)]).toEqual(['CERT', 'KEY']);
    expect(options.rejectUnauthorized).toBe(false);
    expect(options.headers).toBeUndefined();
  });

  it('says where a missing kubeconfig was looked for and how to name one, flag or KUBECONFIG', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'kube-config-')), 'nowhere');
    await expect(loadKubeAccess(missing)).rejects.toThrow(
      `no kubeconfig at ${missing} (given with --kubeconfig): pass --kubeconfig <file> or set KUBECONFIG`,
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = missing;
    try {
      await expect(loadKubeAccess()).rejects.toThrow(/named by \$KUBECONFIG\): pass --kubeconfig/);
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('leaves exec plugins and basic auth to client-node', async () => {
    const exec = kubeconfig({ exec: { command: 'aws', apiVersion: 'client.authentication.k8s.io/v1' } });
    expect(fromFile(exec)).toBeUndefined();
    expect(fromFile(kubeconfig({ username: 'u', password: 'p' }))).toBeUndefined();

    const access = await loadKubeAccess(exec);
    expect(access.getCurrentCluster()?.server).toBe('https://api:6443');
  });
});
