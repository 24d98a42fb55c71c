// Two clusters on one organization: the same namespace name in the shared control plane and in a second one,
// each with its own operator, each reaching the emulator through a recording proxy of its own, so every cloud
// call is known by the cluster that sent it.
import type { ControlPlane } from '../../../../tools/cluster/control-plane.ts';
import { startRecordingProxy, type ProxiedCall, type RecordingProxy } from './cloud-proxy.ts';
import { startOperatorEnv, type OperatorEnv, type QUOTA_MODES } from '../support.ts';

/** One namespace of one cluster, its operator and the proxy that records what it sends. */
export interface Side {
  env: OperatorEnv;
  proxy: RecordingProxy;
}

/** The same namespace name in both clusters, on one organization, each side's cloud calls through its proxy. */
export async function startPair(
  prefix: string,
  second: ControlPlane,
  emulator: (typeof QUOTA_MODES)[number]['emulator'],
): Promise<{ a: Side; b: Side }> {
  const a = await startOperatorEnv(prefix, emulator);
  const b = await startOperatorEnv(prefix, emulator, {
    sharing: a,
    kubeconfigPath: second.kubeconfig,
    namespace: a.namespace,
  });
  const sides: Side[] = [];
  for (const env of [a, b]) {
    const proxy = await startRecordingProxy(env.emulator.url);
    const { credentials } = env.emulator;
    await env.putSecret('cloud-credentials', {
      ...credentials,
      managementUrl: proxy.url,
      alertsUrl: proxy.url,
    });
    await env.putSecret('kafka-user', { username: 'ingest', password: 'kafka-pass' });
    sides.push({ env, proxy });
  }
  return { a: sides[0]!, b: sides[1]! };
}

export async function stopPair(pair: { a: Side; b: Side } | undefined): Promise<void> {
  for (const side of [pair?.b, pair?.a]) {
    await side?.env.close();
    await side?.proxy.stop();
  }
}

/** Calls that name one of `ids` in their path. */
export const touching = (calls: ProxiedCall[], ids: Record<string, string>): ProxiedCall[] =>
  calls.filter((c) => Object.values(ids).some((id) => c.path.includes(id)));
