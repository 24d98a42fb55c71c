// Kubeconfig text for the harness's admin identity. The CA is the one the
// apiserver generated for itself, so clients verify TLS instead of skipping it.
import { stringify } from 'yaml';

export interface KubeconfigParams {
  /** Cluster, user and context name. */
  name: string;
  server: string;
  caPem: string;
  token: string;
}

export function renderKubeconfig(p: KubeconfigParams): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: p.name,
        cluster: { server: p.server, 'certificate-authority-data': Buffer.from(p.caPem).toString('base64') },
      },
    ],
    users: [{ name: p.name, user: { token: p.token } }],
    contexts: [{ name: p.name, context: { cluster: p.name, user: p.name, namespace: 'default' } }],
    'current-context': p.name,
    preferences: {},
  });
}
