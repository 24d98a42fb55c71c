import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import http from 'node:http';
import https from 'node:https';
import { parse } from 'yaml';

/**
 * What the runtime needs of a kubeconfig: the server and the request options that authenticate to it.
 * client-node's `KubeConfig` has this shape, so tests may pass one.
 */
export interface KubeAccess {
  getCurrentCluster(): { server: string } | null;
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

interface NamedEntry<T> {
  name: string;
  cluster?: T;
  user?: T;
  context?: T;
}
type Fields = Record<string, unknown>;

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Loads the kubeconfig the way `kubectl` finds it (`path`, else $KUBECONFIG's first file, else in-cluster,
 * else ~/.kube/config). Importing client-node whole costs about 70 MB of RSS for its generated API, though
 * the operator only needs this; a kubeconfig with an exec or auth-provider plugin, a proxy or basic auth
 * still goes through client-node, loaded only then.
 */
export async function loadKubeAccess(path?: string): Promise<KubeAccess> {
  const file = path ?? process.env.KUBECONFIG?.split(delimiter).find(Boolean);
  if (!file && process.env.KUBERNETES_SERVICE_HOST) return inCluster();
  const configPath = file ?? join(homedir(), '.kube', 'config');
  if (!existsSync(configPath)) throw new Error(missingKubeconfig(configPath, path));
  const simple = fromFile(configPath);
  if (simple) return simple;
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(configPath);
  return kubeConfig;
}

/** Where the missing file was named, and how to name another: a bare ENOENT says neither. */
function missingKubeconfig(configPath: string, flag: string | undefined): string {
  const from = flag
    ? 'given with --kubeconfig'
    : process.env.KUBECONFIG
      ? 'named by $KUBECONFIG'
      : 'the default, as neither --kubeconfig nor $KUBECONFIG is set and this is not a pod';
  return `no kubeconfig at ${configPath} (${from}): pass --kubeconfig <file> or set KUBECONFIG to the cluster's kubeconfig`;
}

/** A kubeconfig with a token or client certificate; undefined when it needs more than that. */
export function fromFile(path: string): KubeAccess | undefined {
  const config = parse(readFileSync(path, 'utf8')) as Fields;
  const entry = <T>(list: unknown, name: unknown, field: 'cluster' | 'user' | 'context') =>
    (list as NamedEntry<T>[] | undefined)?.find((e) => e.name === name)?.[field];
  const context = entry<Fields>(config.contexts, config['current-context'], 'context');
  const cluster = entry<Fields>(config.clusters, context?.cluster, 'cluster');
  const user = entry<Fields>(config.users, context?.user, 'user') ?? {};
  if (!cluster || typeof cluster.server !== 'string') return undefined;
  const unsupported = ['exec', 'auth-provider', 'username', 'impersonate'].some((k) => k in user);
  if (unsupported || 'proxy-url' in cluster) return undefined;
  const base = dirname(path);
  const bytes = (data: unknown, file: unknown) =>
    typeof data === 'string'
      ? Buffer.from(data, 'base64')
      : typeof file === 'string'
        ? readFileSync(isAbsolute(file) ? file : join(base, file))
        : undefined;
  const tokenFile = typeof user.tokenFile === 'string' ? user.tokenFile : undefined;
  return access(cluster.server, {
    ca: bytes(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: bytes(user['client-certificate-data'], user['client-certificate']),
    key: bytes(user['client-key-data'], user['client-key']),
    insecure: cluster['insecure-skip-tls-verify'] === true,
    servername: typeof cluster['tls-server-name'] === 'string' ? cluster['tls-server-name'] : undefined,
    token: () =>
      typeof user.token === 'string' ? user.token : tokenFile && readFileSync(tokenFile, 'utf8').trim(),
  });
}

/** The pod's service account; the token file is re-read on each use, since the kubelet rotates it. */
function inCluster(): KubeAccess {
  const host = process.env.KUBERNETES_SERVICE_HOST!;
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  return access(`https://${host.includes(':') ? `[${host}]` : host}:${port}`, {
    ca: readFileSync(join(SERVICE_ACCOUNT, 'ca.crt')),
    token: () => readFileSync(join(SERVICE_ACCOUNT, 'token'), 'utf8').trim(),
  });
}

interface Credentials {
  ca?: Buffer | undefined;
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  insecure?: boolean;
  servername?: string | undefined;
  token: () => string | undefined;
}

function access(server: string, credentials: Credentials): KubeAccess {
  return {
    getCurrentCluster: () => ({ server }),
    applyToHTTPSOptions: async (options) => {
      const { ca, cert, key, insecure, servername, token } = credentials;
      const tls = {
        ...(ca ? { ca } : {}),
        ...(cert ? { cert } : {}),
        ...(key ? { key } : {}),
        ...(insecure ? { rejectUnauthorized: false } : {}),
        ...(servername ? { servername } : {}),
      };
      // A fresh agent per call, as client-node builds one: kube-http swaps it for a shared keep-alive one.
      const agent = server.startsWith('http:') ? new http.Agent() : new https.Agent(tls);
      Object.assign(options, tls, { agent });
      const bearer = token();
      if (bearer) options.headers = { ...options.headers, authorization: `Bearer ${bearer}` };
    },
  };
}
