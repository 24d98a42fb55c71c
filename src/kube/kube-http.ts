import http from 'node:http';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { KubeAccess } from './kube-config.ts';
import { nextSlice, overSlice } from '../base/slices.ts';

/**
 * Minimal kind-agnostic HTTP to the kube-apiserver. Authentication and TLS come from client-node's
 * `KubeAccess.applyToHTTPSOptions` — the same path its `Watch` class takes — but the request is ours, so
 * it can be aborted at any moment. client-node's `Watch.watch()` only hands out its AbortController once
 * response headers arrive, so a server that never answers would hold the socket forever.
 */

/** The `metav1.Status` body the apiserver returns with errors and in watch ERROR events. */
export interface KubeStatus {
  kind?: string;
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: Array<{ reason?: string; message?: string; field?: string }> };
}

export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly status: KubeStatus | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

export interface KubeRequest {
  method?: string;
  /** Path below the cluster's server URL, e.g. `/api/v1/secrets`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to `application/json` when there is a body. */
  contentType?: string;
  /** Defaults to `application/json`; e.g. the apiserver's PartialObjectMetadata form of an object. */
  accept?: string;
  signal?: AbortSignal;
}

/** Sends the request and parses the JSON answer; throws `KubeApiError` for any non-2xx status. */
export async function kubeRequestJson<T>(kubeConfig: KubeAccess, request: KubeRequest): Promise<T> {
  const response = await send(kubeConfig, request, { pooled: true });
  const text = await readBody(response);
  if (!isSuccess(response)) throw apiError(request, response, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Opens a streaming GET (a watch); throws `KubeApiError` unless the server answers 200. */
export async function kubeOpenStream(
  kubeConfig: KubeAccess,
  request: KubeRequest,
): Promise<http.IncomingMessage> {
  // A watch holds its connection for minutes: it gets its own, never a pooled one that an abort could
  // tear away from another request.
  const response = await send(kubeConfig, request, { pooled: false });
  if (response.statusCode === 200) return response;
  throw apiError(request, response, await readBody(response));
}

/**
 * Calls `onLine` for each newline-terminated line of `stream`, then `onEnd` exactly once: without an
 * error if the server ended the body properly, with one if the connection broke first.
 */
export function readLines(
  stream: http.IncomingMessage,
  onLine: (line: string) => void,
  onEnd: (error?: Error) => void,
): void {
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  let ended = false;
  const end = (error?: Error) => {
    if (ended) return;
    ended = true;
    onEnd(error);
  };
  // The lines of a chunk are handed on in slices of the loop (`yieldIfBusy`): a burst of watch events read in
  // one chunk would otherwise hold the loop until every one was applied. The stream waits meanwhile.
  /** Hands on whole lines; false when it stopped at the end of a slice and will go on in a later turn. */
  const handOn = (): boolean => {
    let start = 0;
    for (
      let newline = buffered.indexOf('\n');
      !ended && newline >= 0;
      newline = buffered.indexOf('\n', start)
    ) {
      const line = buffered.slice(start, newline).trim();
      start = newline + 1;
      if (line) onLine(line);
      if (overSlice() && buffered.indexOf('\n', start) >= 0) {
        buffered = buffered.slice(start);
        stream.pause();
        void nextSlice().then(() => {
          if (handOn() && !stream.destroyed) stream.resume();
        });
        return false;
      }
    }
    buffered = buffered.slice(start);
    return true;
  };
  stream.on('data', (chunk: Buffer) => {
    buffered += decoder.write(chunk);
    if (!stream.isPaused()) handOn();
  });
  stream.on('end', () => end());
  stream.on('error', (error) => end(error));
  stream.on('close', () => end(stream.complete ? undefined : new Error('stream closed before it ended')));
}

function abortError(): Error {
  return new DOMException('The operation was aborted', 'AbortError');
}

const sharedAgents = new Map<string, http.Agent>();

/** A keep-alive agent per TLS identity (CA, client certificate, verification), for plain agents only. */
function sharedAgent(
  options: https.RequestOptions,
  transport: typeof http | typeof https,
): http.Agent | undefined {
  const fresh = options.agent;
  if (!fresh || (fresh.constructor !== https.Agent && fresh.constructor !== http.Agent)) return undefined;
  const tls = (fresh as https.Agent).options;
  const identity = createHash('sha256')
    .update(
      JSON.stringify([
        transport === https,
        tls.ca,
        tls.cert,
        tls.key,
        tls.pfx,
        tls.rejectUnauthorized,
        tls.servername,
      ]),
    )
    .digest('hex');
  let agent = sharedAgents.get(identity);
  if (!agent) {
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = tls;
    agent =
      transport === https
        ? new https.Agent({ keepAlive: true, ca, cert, key, pfx, passphrase, rejectUnauthorized, servername })
        : new http.Agent({ keepAlive: true });
    sharedAgents.set(identity, agent);
  }
  return agent;
}

/**
 * Applying a KubeAccess reads its certificates and builds an agent (about 150 µs), and identifying the agent
 * hashes the CA bundle: done per request, that was a large share of the operator's CPU in a burst. Pooled
 * requests reuse the applied options (auth headers included) for this long, so a rotated token or
 * certificate is still picked up promptly.
 */
const REAPPLY_AFTER_MS = 1_000;
let applied = new WeakMap<KubeAccess, { options: https.RequestOptions; at: number }>();

async function pooledOptions(
  kubeConfig: KubeAccess,
  transport: typeof http | typeof https,
): Promise<https.RequestOptions> {
  const now = performance.now();
  const cached = applied.get(kubeConfig);
  if (cached && now - cached.at < REAPPLY_AFTER_MS) return cached.options;
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const shared = sharedAgent(options, transport);
  // Only a plain agent is swapped for a shared one; any other (a proxy's) stays per request.
  if (shared) {
    (options.agent as http.Agent).destroy();
    options.agent = shared;
    applied.set(kubeConfig, { options, at: now });
  }
  return options;
}

function isShared(agent: http.Agent): boolean {
  for (const shared of sharedAgents.values()) if (shared === agent) return true;
  return false;
}

/** Closes the shared connections to the apiserver (at shutdown). */
export function closeKubeConnections(): void {
  for (const agent of sharedAgents.values()) agent.destroy();
  sharedAgents.clear();
  applied = new WeakMap();
}

export function isGone(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 410;
}

async function send(
  kubeConfig: KubeAccess,
  request: KubeRequest,
  { pooled }: { pooled: boolean },
): Promise<http.IncomingMessage> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + request.path);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }

  // applyToHTTPSOptions builds a fresh agent per call; for a pooled request a plain one is swapped for a
  // shared keep-alive agent with the same TLS identity, so a reconcile's writes share connections.
  const transport = url.protocol === 'https:' ? https : http;
  const options: https.RequestOptions = pooled ? await pooledOptions(kubeConfig, transport) : {};
  if (!pooled) await kubeConfig.applyToHTTPSOptions(options);
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers: http.OutgoingHttpHeaders = {
    ...(options.headers as http.OutgoingHttpHeaders | undefined),
    accept: request.accept ?? 'application/json',
  };
  if (body !== undefined) {
    headers['content-type'] = request.contentType ?? 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  // A fresh agent (e.g. a proxy's) is destroyed when done, leaving no idle socket behind.
  const own = options.agent instanceof http.Agent && !isShared(options.agent) ? options.agent : undefined;

  return new Promise((resolve, reject) => {
    const { signal } = request;
    if (signal?.aborted) return reject(abortError());
    // Abort reaches the request only while its response is open: a finished response's keep-alive socket
    // is back in the shared pool and may already carry another request.
    const onAbort = () => outgoing.destroy(abortError());
    const detach = () => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    const outgoing = transport.request(
      url,
      { ...options, method: request.method ?? 'GET', headers },
      (response) => {
        response.once('end', detach);
        response.once('close', () => {
          detach();
          own?.destroy();
        });
        resolve(response);
      },
    );
    // `on`, not `once`: after a reset, the abort that follows emits a second error, which must not go unhandled.
    outgoing.on('error', (error) => {
      detach();
      own?.destroy();
      reject(error);
    });
    outgoing.end(body);
  });
}

function readBody(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

function isSuccess(response: http.IncomingMessage): boolean {
  const code = response.statusCode ?? 0;
  return code >= 200 && code < 300;
}

function apiError(request: KubeRequest, response: http.IncomingMessage, text: string): KubeApiError {
  const statusCode = response.statusCode ?? 0;
  let status: KubeStatus | undefined;
  try {
    const parsed = JSON.parse(text) as KubeStatus;
    if (parsed?.kind === 'Status') status = parsed;
  } catch {
    // not JSON: an HTML error page from a proxy, say
  }
  const detail = status?.message ?? (text.slice(0, 200) || http.STATUS_CODES[statusCode] || 'unknown error');
  return new KubeApiError(
    statusCode,
    status,
    `${request.method ?? 'GET'} ${request.path}: ${statusCode} ${detail}`,
  );
}
