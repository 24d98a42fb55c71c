import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpKubeWriter } from '../../../src/managed/kube-writer.ts';
import { localKubeConfig } from '../kube/fake-kube-api.ts';
import { widget } from './fakes.ts';

const KIND = { group: 'example.dev', version: 'v1', plural: 'widgets' };
const SECRETS = '/api/v1/namespaces/ns/secrets';

interface Recorded {
  method: string;
  path: string;
  contentType: string | undefined;
  body: Record<string, unknown> | undefined;
}

interface Secret {
  metadata: { name: string; resourceVersion: string; ownerReferences?: unknown[]; labels?: unknown };
  data: Record<string, string>;
}

/** Just enough of the apiserver for HttpKubeWriter: Secrets with resourceVersions, and echoing object patches. */
class SecretServer {
  readonly requests: Recorded[] = [];
  readonly secrets = new Map<string, Secret>();
  /** Runs before a request is served (to change the world in between two of the writer's requests). */
  beforeServe: ((request: Recorded) => void) | undefined;
  private resourceVersion = 10;
  private server = http.createServer((request, response) => this.serve(request, response));

  async start(): Promise<KubeConfig> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return localKubeConfig(this.server);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  putSecret(name: string, values: Record<string, string>, ownerReferences: unknown[] = []): void {
    const data = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    );
    this.secrets.set(name, {
      metadata: { name, resourceVersion: String(++this.resourceVersion), ownerReferences },
      data,
    });
  }

  values(name: string): Record<string, string> | undefined {
    const secret = this.secrets.get(name);
    return (
      secret &&
      Object.fromEntries(
        Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
      )
    );
  }

  writes(): Recorded[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  private serve(request: http.IncomingMessage, response: http.ServerResponse): void {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const recorded: Recorded = {
        method: request.method!,
        path: request.url!,
        contentType: request.headers['content-type'],
        body: text ? JSON.parse(text) : undefined,
      };
      this.requests.push(recorded);
      this.beforeServe?.(recorded);
      const [status, body] = this.answer(recorded);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  }

  private answer({ method, path, body }: Recorded): [number, unknown] {
    const failure = (code: number, reason: string) =>
      [code, { kind: 'Status', code, reason, message: reason }] as [number, unknown];
    if (path.startsWith('/apis/')) return [200, { ...widget('a'), ...body }];
    const name = path.slice(SECRETS.length + 1);
    const secret = this.secrets.get(name);
    if (method === 'GET') return secret ? [200, secret] : failure(404, 'NotFound');
    if (method === 'POST') {
      const created = body as unknown as Secret;
      if (this.secrets.has(created.metadata.name)) return failure(409, 'AlreadyExists');
      created.metadata.resourceVersion = String(++this.resourceVersion);
      this.secrets.set(created.metadata.name, created);
      return [201, created];
    }
    if (method === 'PATCH') {
      if (!secret) return failure(404, 'NotFound');
      const patch = body as { metadata?: { resourceVersion?: string }; data?: Record<string, string> };
      const precondition = patch.metadata?.resourceVersion;
      if (precondition && precondition !== secret.metadata.resourceVersion) return failure(409, 'Conflict');
      secret.data = { ...secret.data, ...patch.data };
      secret.metadata.resourceVersion = String(++this.resourceVersion);
      return [200, secret];
    }
    return failure(405, 'MethodNotAllowed');
  }
}

describe('HttpKubeWriter', () => {
  let server: SecretServer;
  let writer: HttpKubeWriter;
  const owner = widget('a');
  const controlledByOwner = [
    { apiVersion: 'example.dev/v1', kind: 'Widget', name: 'a', uid: 'uid-a', controller: true },
  ];

  beforeEach(async () => {
    server = new SecretServer();
    writer = new HttpKubeWriter(await server.start());
  });
  afterEach(() => server.stop());

  describe('connection Secrets', () => {
    it('writes nothing into an existing Secret the resource does not control, and says which Secret', async () => {
      server.putSecret('app-config', { token: 'keep-me' });

      const write = writer.writeConnectionSecret(owner, 'app-config', { password: 'pw-1' }, true);

      await expect(write).rejects.toMatchObject({ reason: 'SecretConflict' });
      await expect(write).rejects.toThrow(/Secret app-config/);
      expect(server.writes()).toEqual([]);
      expect(server.values('app-config')).toEqual({ token: 'keep-me' });
    });

    it('writes nothing into a Secret another resource controls, nor one it merely co-owns', async () => {
      server.putSecret('shared', { password: 'first' }, [
        { kind: 'Widget', name: 'first', uid: 'uid-first', controller: true },
        { kind: 'Widget', name: 'a', uid: 'uid-a' },
      ]);

      await expect(
        writer.writeConnectionSecret(owner, 'shared', { password: 'pw-1' }, true),
      ).rejects.toMatchObject({
        reason: 'SecretConflict',
      });
      await expect(writer.readConnectionSecret(owner, 'shared')).rejects.toMatchObject({
        reason: 'SecretConflict',
      });
      expect(server.values('shared')).toEqual({ password: 'first' });
    });

    it('keeps the Secret’s values out of the conflict message', async () => {
      server.putSecret('app-config', { token: 'keep-me' });
      const error = await writer.readConnectionSecret(owner, 'app-config').catch((e: Error) => e);
      expect(String(error)).not.toContain('keep-me');
      expect(String(error)).not.toContain(Buffer.from('keep-me').toString('base64'));
    });

    it('merges into a Secret it controls, guarded by the resourceVersion it checked', async () => {
      server.putSecret('a-connection', { password: 'old', host: 'h' }, controlledByOwner);
      const checked = server.secrets.get('a-connection')!.metadata.resourceVersion;

      await writer.writeConnectionSecret(owner, 'a-connection', { password: 'new' }, true);

      expect(server.values('a-connection')).toEqual({ password: 'new', host: 'h' });
      const patch = server.writes()[0]!;
      expect(patch).toMatchObject({ method: 'PATCH', contentType: 'application/merge-patch+json' });
      expect(patch.body).toMatchObject({ metadata: { resourceVersion: checked } });
    });

    it('patches at the version the caller checked without reading the Secret, and re-checks a stale one', async () => {
      server.putSecret('a-connection', { password: 'old' }, controlledByOwner);
      const checked = server.secrets.get('a-connection')!.metadata.resourceVersion!;

      await writer.writeConnectionSecret(owner, 'a-connection', { password: 'new' }, true, checked);
      expect(server.writes()).toHaveLength(1);
      expect(server.values('a-connection')).toEqual({ password: 'new' });

      // The cache lagged: the version is stale, so the Secret is read and checked again, then patched.
      server.putSecret('a-connection', { password: 'theirs' }, []);
      await expect(
        writer.writeConnectionSecret(owner, 'a-connection', { password: 'pw' }, true, checked),
      ).rejects.toMatchObject({ reason: 'SecretConflict' });
      expect(server.values('a-connection')).toEqual({ password: 'theirs' });
    });

    it('creates a missing Secret controlled by the resource and labelled as managed by sluice', async () => {
      await writer.writeConnectionSecret(owner, 'a-connection', { password: 'pw' }, false);

      expect(server.values('a-connection')).toEqual({ password: 'pw' });
      expect(server.secrets.get('a-connection')!.metadata).toMatchObject({
        labels: { 'app.kubernetes.io/managed-by': 'sluice' },
        ownerReferences: [
          { kind: 'Widget', name: 'a', uid: 'uid-a', controller: true, blockOwnerDeletion: true },
        ],
      });
      expect(await writer.readConnectionSecret(owner, 'a-connection')).toEqual({ password: 'pw' });
    });

    it('answers a create and a patch with the Secret as stored: every value and the new version', async () => {
      const created = await writer.writeConnectionSecret(owner, 'a-connection', { password: 'pw' }, false);
      const stored = () => server.secrets.get('a-connection')!.metadata;
      expect(created).toEqual({
        data: { password: 'pw' },
        resourceVersion: stored().resourceVersion,
        ownerReferences: stored().ownerReferences,
      });

      const patched = await writer.writeConnectionSecret(
        owner,
        'a-connection',
        { host: 'h' },
        true,
        created.resourceVersion,
      );
      expect(patched).toMatchObject({
        data: { password: 'pw', host: 'h' },
        resourceVersion: stored().resourceVersion,
      });
      expect(patched.resourceVersion).not.toBe(created.resourceVersion);
    });

    it('does not take over a Secret someone else created between its check and its create', async () => {
      server.beforeServe = (request) => {
        if (request.method === 'POST') server.putSecret('a-connection', { token: 'theirs' });
      };

      await expect(
        writer.writeConnectionSecret(owner, 'a-connection', { password: 'pw' }, false),
      ).rejects.toMatchObject({
        reason: 'SecretConflict',
      });
      expect(server.values('a-connection')).toEqual({ token: 'theirs' });
    });

    it('answers undefined for a Secret that does not exist', async () => {
      expect(await writer.readConnectionSecret(owner, 'missing')).toBeUndefined();
      expect(await writer.getSecretData('ns', 'missing')).toBeUndefined();
    });
  });

  it('replaces the status with a merge patch that removes the fields the new status drops', async () => {
    const resource = { ...widget('a'), status: { id: 'w-1', state: 'running', endpoints: [] } };

    await writer.patchStatus(KIND, resource, { id: 'w-1', observedGeneration: 1 });

    expect(server.requests[0]).toMatchObject({
      method: 'PATCH',
      path: '/apis/example.dev/v1/namespaces/ns/widgets/a/status',
      contentType: 'application/merge-patch+json',
      body: { status: { id: 'w-1', observedGeneration: 1, state: null, endpoints: null } },
    });
  });

  it('sets finalizers guarded by the resourceVersion it read', async () => {
    await writer.setFinalizers(KIND, widget('a'), ['sluice.dev/cleanup']);

    expect(server.requests[0]).toMatchObject({
      method: 'PATCH',
      path: '/apis/example.dev/v1/namespaces/ns/widgets/a',
      body: { metadata: { finalizers: ['sluice.dev/cleanup'], resourceVersion: '1' } },
    });
  });
});
