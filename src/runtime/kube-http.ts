import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Minimal kind-agnostic HTTP to the kube-apiserver. Authentication and TLS come from client-node's
 * `KubeConfig.applyToHTTPSOptions` — the same path its `Watch` class takes — but the request is ours, so
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
  signal?: AbortSignal;
}

/** Sends the request and parses the JSON answer; throws `KubeApiError` for any non-2xx status. */
export async function kubeRequestJson<T>(kubeConfig: KubeConfig, request: KubeRequest): Promise<T> {
  const response = await send(kubeConfig, request);
  const text = await readBody(response);
  if (!isSuccess(response)) throw apiError(request, response, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Opens a streaming GET (a watch); throws `KubeApiError` unless the server answers 200. */
export async function kubeOpenStream(
  kubeConfig: KubeConfig,
  request: KubeRequest,
): Promise<http.IncomingMessage> {
  const response = await send(kubeConfig, request);
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
  stream.on('data', (chunk: Buffer) => {
    buffered += decoder.write(chunk);
    let newline: number;
    while (!ended && (newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) onLine(line);
    }
  });
  stream.on('end', () => end());
  stream.on('error', (error) => end(error));
  stream.on('close', () => end(stream.complete ? undefined : new Error('stream closed before it ended')));
}

export function isGone(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 410;
}

async function send(kubeConfig: KubeConfig, request: KubeRequest): Promise<http.IncomingMessage> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + request.path);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }

  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const headers: http.OutgoingHttpHeaders = {
    ...(options.headers as http.OutgoingHttpHeaders | undefined),
    accept: 'application/json',
  };
  if (body !== undefined) {
    headers['content-type'] = request.contentType ?? 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  // applyToHTTPSOptions builds a fresh agent per call; destroying it when done leaves no idle socket behind.
  const agent = options.agent instanceof http.Agent ? options.agent : undefined;
  const transport = url.protocol === 'https:' ? https : http;

  return new Promise((resolve, reject) => {
    const outgoing = transport.request(
      url,
      { ...options, method: request.method ?? 'GET', headers, signal: request.signal },
      (response) => {
        response.once('close', () => agent?.destroy());
        resolve(response);
      },
    );
    outgoing.once('error', (error) => {
      agent?.destroy();
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
    response.once('error', reject);
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
