import http from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FINALIZER, type ManagedKind, type ManagedObject } from '../../../src/managed/index.ts';
import { liveReconcilers } from '../../../src/composition/reconcilers.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { Watches } from '../../../src/runtime/watches.ts';
import { OperatorMetrics } from '../../../src/runtime/metrics.ts';
import { localKubeConfig } from '../kube/fake-kube-api.ts';
import { acceptingWriter, FakeCloud, fakeEvents, widget, widgetKind } from '../managed/fakes.ts';

const until = { timeout: 5_000, interval: 10 };

/** A manager of widgets in namespace ns on `api`; `onReconcile` runs as each reconcile asks for the cloud. */
function widgetManager(api: SlowSecretsApi, cloud: FakeCloud, concurrency: number, onReconcile: () => void) {
  const kubeConfig = localKubeConfig(api.server);
  const logger = pino({ enabled: false });
  return new Manager<FakeCloud>({
    kubeConfig,
    watches: new Watches({
      kubeConfig,
      kinds: [widgetKind(cloud) as unknown as ManagedKind<ManagedObject, FakeCloud, unknown>],
      namespaces: ['ns'],
      logger,
    }),
    reconcilerFor: liveReconcilers<FakeCloud>({
      writer: acceptingWriter(),
      events: fakeEvents().recorder,
      cloudFor: async () => {
        onReconcile();
        return cloud;
      },
      syncIntervalMs: 600_000,
      pollIntervalMs: 600_000,
    }),
    concurrency,
    metrics: new OperatorMetrics(),
    logger,
  });
}

/**
 * An apiserver serving widgets and Secrets whose Secret list answers only when the test says so, as a
 * large namespace's Secrets arrive after its few sluice objects. Watches stay open and silent.
 */
class SlowSecretsApi {
  readonly requests: string[] = [];
  private releaseSecrets!: () => void;
  private readonly secretsReleased = new Promise<void>((resolve) => (this.releaseSecrets = resolve));
  private readonly watchOpened = new Set<string>();
  private readonly openResponses = new Set<http.ServerResponse>();

  constructor(
    readonly server: http.Server,
    private readonly lists: Record<string, unknown[]>,
  ) {
    server.on('request', (request, response) => void this.handle(request, response));
  }

  static async start(lists: Record<string, unknown[]>): Promise<SlowSecretsApi> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new SlowSecretsApi(server, lists);
  }

  releaseSecretList(): void {
    this.releaseSecrets();
  }

  hasWatch(path: string): boolean {
    return this.watchOpened.has(path);
  }

  async close(): Promise<void> {
    this.releaseSecrets();
    for (const response of this.openResponses) response.end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    this.requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (url.searchParams.get('watch') === 'true') {
      this.watchOpened.add(url.pathname);
      this.openResponses.add(response);
      response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      response.flushHeaders();
      return;
    }
    if (url.pathname.endsWith('/secrets')) await this.secretsReleased;
    const items = this.lists[url.pathname];
    // A GET of one object of a listed collection (the data of a Secret the operator uses).
    const slash = url.pathname.lastIndexOf('/');
    const one = (
      this.lists[url.pathname.slice(0, slash)] as { metadata: { name: string } }[] | undefined
    )?.find((item) => item.metadata.name === url.pathname.slice(slash + 1));
    if (one) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(one));
      return;
    }
    if (!items) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', code: 404 }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ kind: 'List', metadata: { resourceVersion: '10' }, items }));
  }
}

describe('Manager', () => {
  let api: SlowSecretsApi | undefined;
  let manager: Manager<FakeCloud> | undefined;
  const widgetsWatched = () =>
    vi.waitFor(() => expect(api!.hasWatch('/apis/example.dev/v1/namespaces/ns/widgets')).toBe(true), until);

  afterEach(async () => {
    await manager?.stop();
    await api?.close();
  });

  it('starts no reconcile before every cache has synced: a Secret listed late is not taken for lost', async () => {
    const cloud = new FakeCloud();
    cloud.widgets.set('w-1', { size: 1, ready: true, uid: 'uid-a' });
    const existing = widget('a');
    existing.metadata.finalizers = [FINALIZER];
    existing.status = { id: 'w-1', observedGeneration: 1 };
    const connection = {
      metadata: {
        name: 'a-connection',
        namespace: 'ns',
        resourceVersion: '5',
        ownerReferences: [{ kind: 'Widget', name: 'a', uid: 'uid-a', controller: true }],
      },
      data: {
        host: Buffer.from('w-1.example').toString('base64'),
        password: Buffer.from('pw').toString('base64'),
      },
    };
    api = await SlowSecretsApi.start({
      '/apis/example.dev/v1/namespaces/ns/widgets': [existing],
      '/api/v1/namespaces/ns/secrets': [connection],
    });

    const reconciles: { synced: boolean; secretCached: boolean }[] = [];
    manager = widgetManager(api, cloud, 2, () =>
      reconciles.push({
        synced: manager!.hasSynced(),
        secretCached: manager!.secrets.get('ns', 'a-connection') !== undefined,
      }),
    );
    void manager.start();

    // The widget is listed and enqueued before its watch opens; a worker would have taken it by now.
    await widgetsWatched();
    expect(manager.hasSynced()).toBe(false);
    expect(reconciles).toEqual([]);

    api.releaseSecretList();
    await vi.waitFor(() => expect(reconciles.length).toBeGreaterThan(0), until);
    expect(reconciles.every((r) => r.synced && r.secretCached)).toBe(true);
    await vi.waitFor(() => expect(cloud.calls).toContain('observe'), until);
    expect(cloud.calls).not.toContain('recover');
  });

  it('stops cleanly while a cache is still listing, and never starts a worker after stop', async () => {
    const cloud = new FakeCloud();
    api = await SlowSecretsApi.start({
      '/apis/example.dev/v1/namespaces/ns/widgets': [widget('a')],
      '/api/v1/namespaces/ns/secrets': [],
    });
    let reconciled = 0;
    manager = widgetManager(api, cloud, 1, () => reconciled++);
    void manager.start();
    await widgetsWatched();

    await manager.stop();
    api.releaseSecretList();
    await manager.stop();
    expect(reconciled).toBe(0);
  });
});
