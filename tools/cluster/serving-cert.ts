// The test apiserver's serving certificate, on an ECDSA P-256 key. Left to itself the apiserver makes an RSA
// 2048 one, and every TLS handshake then costs it an RSA signature: client-node opens a connection per
// request, so in the test suite those signatures were a fifth of the shared apiserver's CPU. An ECDSA
// signature costs a small fraction of that. Made with the openssl command; without it, the apiserver makes its
// own as before.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The names every client of a test cluster may reach the apiserver by, in-cluster ones included. */
const IN_CLUSTER_NAMES = [
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
];

export interface ServingCertificate {
  /** Holds the certificate, which is also the CA clients trust (it signs itself). */
  certFile: string;
  keyFile: string;
}

/**
 * Writes a self-signed ECDSA certificate for `ips` and the in-cluster names into `dir` as `apiserver.crt` and
 * `apiserver.key` (the names the apiserver's own would have). Undefined when openssl cannot be run.
 */
export function ecdsaServingCertificate(dir: string, ips: readonly string[]): ServingCertificate | undefined {
  const certFile = join(dir, 'apiserver.crt');
  const keyFile = join(dir, 'apiserver.key');
  const names = [...ips.map((ip) => `IP:${ip}`), ...IN_CLUSTER_NAMES.map((name) => `DNS:${name}`)];
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '30',
        '-subj',
        '/CN=kube-apiserver',
        '-addext',
        `subjectAltName=${names.join(',')}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,digitalSignature,keyCertSign',
        '-addext',
        'extendedKeyUsage=serverAuth',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { certFile, keyFile };
}
