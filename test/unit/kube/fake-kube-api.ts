import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../../src/kube/cache.ts';

/**
 * A scripted stand-in for the kube-apiserver's list, watch and GET of one object, for the reflector's fault
 * tests (socket resets, hung streams and 410s cannot be produced on demand by a real apiserver) and for what
 * reads beside a watch (the order of a watch event and a write's answer cannot be chosen on a real one).
 *
 * It keeps objects and an event history with resourceVersions like the real one: a watch replays the
 * events after the requested resourceVersion, and one older than the compaction point is answered 410.
 */
export interface RecordedRequest {
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

/** Takes over one watch request instead of the normal behaviour. */
export type WatchScript = (response: http.ServerResponse) => void;

export class FakeKubeApi {
  readonly lists: RecordedRequest[] = [];
  readonly watches: RecordedRequest[] = [];
  /** GETs of one object (`…/namespaces/<namespace>/<resource>/<name>`). */
  readonly gets: RecordedRequest[] = [];
  /** How a too-old resourceVersion is answered: an ERROR event in a 200 stream, or an HTTP 410. */
  goneAs: 'event' | 'http' = 'event';
  /** Answer list pages that carry a continue token with 410, as after an etcd compaction. */
  expireContinueTokens = false;

  private resourceVersion = 100;
  private compactedAt = 0;
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: Array<{ resourceVersion: number; line: string }> = [];
  private readonly openWatches = new Set<http.ServerResponse>();
  private readonly watchScripts: WatchScript[] = [];
  private readonly listFailures: number[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<FakeKubeApi> {
    const server = http.createServer();
    const api = new FakeKubeApi(server);
    server.on('request', (request, response) => api.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  kubeConfig(): KubeConfig {
    return localKubeConfig(this.server);
  }

  get openWatchCount(): number {
    return this.openWatches.size;
  }

  get currentResourceVersion(): string {
    return String(this.resourceVersion);
  }

  /** Creates or replaces an object and streams ADDED/MODIFIED to open watches; returns it as stored. */
  put<T extends KubeObject>(object: T): T {
    const key = keyOf(object);
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    const stored = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(++this.resourceVersion) },
    };
    this.objects.set(key, stored);
    this.record(type, stored);
    return stored;
  }

  /** Deletes an object and streams DELETED to open watches. */
  delete(namespace: string, name: string): void {
    const stored = this.objects.get(`${namespace}/${name}`);
    if (!stored) throw new Error(`no object ${namespace}/${name}`);
    this.objects.delete(`${namespace}/${name}`);
    this.record('DELETED', {
      ...stored,
      metadata: { ...stored.metadata, resourceVersion: String(++this.resourceVersion) },
    });
  }

  /** Drops the history up to now: watches from an older resourceVersion get 410 Gone. */
  compact(): void {
    this.compactedAt = this.resourceVersion;
    this.history.length = 0;
  }

  /** Streams a raw event to every open watch without recording it. */
  send(event: { type: string; object: unknown }): void {
    for (const response of this.openWatches) response.write(JSON.stringify(event) + '\n');
  }

  /** Sends a BOOKMARK at a new resourceVersion. */
  bookmark(): string {
    const resourceVersion = String(++this.resourceVersion);
    this.send({ type: 'BOOKMARK', object: { kind: 'Widget', metadata: { resourceVersion } } });
    return resourceVersion;
  }

  /** Ends every open watch properly, as the server does when timeoutSeconds is up. */
  endWatches(): void {
    for (const response of this.openWatches) response.end();
    this.openWatches.clear();
  }

  /** Kills every open watch's TCP connection mid-stream. */
  resetWatches(): void {
    for (const response of this.openWatches) response.socket?.resetAndDestroy();
    this.openWatches.clear();
  }

  /** The next watch request is handled by `script` instead of served. */
  scriptNextWatch(script: WatchScript): void {
    this.watchScripts.push(script);
  }

  /** The next list request is answered with this HTTP status. */
  failNextList(statusCode: number): void {
    this.listFailures.push(statusCode);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private record(type: string, object: KubeObject): void {
    const line = JSON.stringify({ type, object });
    this.history.push({ resourceVersion: this.resourceVersion, line });
    for (const response of this.openWatches) response.write(line + '\n');
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    const recorded = {
      path: url.pathname,
      query: url.searchParams,
      authorization: request.headers.authorization,
    };
    const one = /\/namespaces\/([^/]+)\/[^/]+\/([^/]+)$/.exec(url.pathname);
    if (url.searchParams.get('watch') === 'true') {
      this.watches.push(recorded);
      this.serveWatch(url.searchParams, response);
    } else if (one) {
      this.gets.push(recorded);
      const object = this.objects.get(`${one[1]}/${one[2]}`);
      if (object) sendJson(response, 200, object);
      else sendStatus(response, 404, 'NotFound');
    } else {
      this.lists.push(recorded);
      this.serveList(url.searchParams, response);
    }
  }

  private serveList(query: URLSearchParams, response: http.ServerResponse): void {
    const failure = this.listFailures.shift();
    if (failure) return sendStatus(response, failure, 'InternalError');
    const token = query.get('continue');
    if (token && this.expireContinueTokens) return sendStatus(response, 410, 'Expired');

    const all = [...this.objects.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, object]) => object);
    const offset = token ? Number(Buffer.from(token, 'base64url').toString()) : 0;
    const limit = Number(query.get('limit') ?? 0) || all.length;
    const page = all.slice(offset, offset + limit).map(({ apiVersion: _a, kind: _k, ...item }) => item);
    const next =
      offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64url') : undefined;
    sendJson(response, 200, {
      apiVersion: 'example.dev/v1',
      kind: 'WidgetList',
      metadata: { resourceVersion: this.currentResourceVersion, ...(next ? { continue: next } : {}) },
      items: page,
    });
  }

  private serveWatch(query: URLSearchParams, response: http.ServerResponse): void {
    const script = this.watchScripts.shift();
    if (script) return script(response);

    const from = Number(query.get('resourceVersion') ?? 0);
    if (from < this.compactedAt) {
      if (this.goneAs === 'http') return sendStatus(response, 410, 'Expired');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'ERROR', object: status(410, 'Expired') }) + '\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    for (const event of this.history) if (event.resourceVersion > from) response.write(event.line + '\n');
    this.openWatches.add(response);
    response.on('close', () => this.openWatches.delete(response));
  }
}

/** A kubeconfig for a plain-HTTP test server on loopback, with bearer token `t`. */
export function localKubeConfig(server: http.Server): KubeConfig {
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

/** Script: answer 200 with headers, then never send a byte. */
export const hangAfterHeaders: WatchScript = (response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  response.flushHeaders();
};

/** Script: never answer at all. */
export const hangBeforeHeaders: WatchScript = () => {};

/** Script: answer with an HTTP error status. */
export const failWith =
  (statusCode: number): WatchScript =>
  (response) =>
    sendStatus(response, statusCode, 'InternalError');

export function widget(namespace: string, name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { namespace, name }, ...extra };
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

function status(code: number, reason: string) {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: `${reason} (fake)` };
}

function sendStatus(response: http.ServerResponse, code: number, reason: string): void {
  sendJson(response, code, status(code, reason));
}

function sendJson(response: http.ServerResponse, code: number, body: unknown): void {
  response.writeHead(code, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
