// kube-controller-manager for the local control plane: the controllers that make the cluster behave like a
// real one towards sluice's objects, started once kube-apiserver is ready and the CRDs are applied.
import { join } from 'node:path';
import { startProcess, type Managed } from './processes.ts';

/**
 * The controllers run by default: the namespace controller finishes a namespace deletion (deleting what is
 * in it, in no order of ours, then the namespace; it starts 5 s after the request, a grace period fixed in
 * the controller), and the garbage collector deletes what an owner that is gone owned. Nothing here needs a
 * ServiceAccount token, so no token controller runs.
 */
export const DEFAULT_CONTROLLERS = ['namespace', 'garbagecollector'] as const;

/**
 * With a node, what a Deployment and its pods need as in a real cluster: Deployments make ReplicaSets and
 * ReplicaSets make pods; every namespace gets its `default` ServiceAccount (the ServiceAccount admission plugin
 * refuses a pod whose ServiceAccount does not exist) and its `kube-root-ca.crt` ConfigMap (the CA in every pod's
 * projected token volume); legacy token Secrets are filled in; PodDisruptionBudgets get the status evictions
 * (`kubectl drain`) are judged by; Jobs make their pods (the chart's pre-delete hook). Only with a node:
 * nothing else runs pods.
 */
export const NODE_CONTROLLERS = [
  ...DEFAULT_CONTROLLERS,
  'deployment',
  'replicaset',
  'job',
  'serviceaccount',
  'serviceaccount-token',
  'root-ca-cert-publisher',
  'disruption',
] as const;

export interface ControllerManagerParams {
  binary: string;
  /** The admin kubeconfig (static token in system:masters): every controller acts with it. */
  kubeconfig: string;
  /** Loopback port for its own HTTPS endpoint (/healthz). */
  port: number;
  /** Scratch directory for its log and self-signed serving certificate. */
  dir: string;
  controllers: readonly string[];
  /** The service-account signing key (PEM), for the serviceaccount-token controller. */
  serviceAccountKey?: string;
  /** The cluster's CA bundle (PEM), published as every namespace's kube-root-ca.crt ConfigMap. */
  rootCa?: string;
}

export function controllerManagerArgs(p: ControllerManagerParams): string[] {
  return [
    `--kubeconfig=${p.kubeconfig}`,
    // Its own endpoint authenticates and authorizes callers against the apiserver, as the admin.
    `--authentication-kubeconfig=${p.kubeconfig}`,
    `--authorization-kubeconfig=${p.kubeconfig}`,
    // The control plane has no front proxy: nothing to read from kube-system's authentication ConfigMap.
    '--authentication-skip-lookup',
    '--bind-address=127.0.0.1',
    `--secure-port=${p.port}`,
    `--cert-dir=${join(p.dir, 'kube-controller-manager-certs')}`,
    `--controllers=${p.controllers.join(',')}`,
    // One instance, acting as the admin: no lease to wait for, no per-controller ServiceAccounts to mint.
    '--leader-elect=false',
    '--use-service-account-credentials=false',
    '--v=1',
    ...(p.serviceAccountKey ? [`--service-account-private-key-file=${p.serviceAccountKey}`] : []),
    ...(p.rootCa ? [`--root-ca-file=${p.rootCa}`] : []),
  ];
}

export function startControllerManager(p: ControllerManagerParams): Managed {
  return startProcess(
    'kube-controller-manager',
    p.binary,
    controllerManagerArgs(p),
    join(p.dir, 'kube-controller-manager.log'),
  );
}
