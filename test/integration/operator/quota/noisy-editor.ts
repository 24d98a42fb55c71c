// What the quota files share: a namespace whose query endpoints a test edits continuously (each edit is a
// reconcile of user calls: a GET and a POST), and how the cloud's call log is read per window and per namespace.
import { until } from '../../../support/wait.ts';
import { isReady, type CallRecord, type OperatorEnv, type SluiceObject } from '../support.ts';

/** The emulator's window at the real quota: every call in it counts against the key's 10. */
export const WINDOW_MS = 10_000;
/** The operator's management quota: at most this many calls start in any window. */
export const CALLS_PER_WINDOW = 10;
/** The window as the operator's scheduler spends it: a slot stays spent the window + 100 ms after its call. */
export const HOLD_MS = WINDOW_MS + 100;
/** The two values the editor switches an endpoint's `allowedOrigins` between. */
export const ORIGINS = ['a.example.com', 'b.example.com'];

export const at = (call: CallRecord) => Date.parse(call.timestamp);

/** The most calls that arrived within any `windowMs`. */
export function busiestWindow(calls: CallRecord[], windowMs: number): number {
  const times = calls.map(at).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** Which namespace a call was made for, by the service ids of each namespace's query endpoints. */
export class CallOwners {
  private readonly servicesOf = new Map<string, string[]>();

  /**
   * `count` cloud services named `<label> <i>` with a QueryEndpoint each (`endpoint-<i>`), under `secret`
   * (the env's own: none).
   */
  async endpoints(
    env: OperatorEnv,
    count: number,
    label: string,
    { secret, annotations = {} }: { secret?: string; annotations?: Record<string, string> } = {},
  ): Promise<void> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { service } = await env.cloud.createService({
        name: `${label} ${i}`,
        provider: 'aws',
        region: 'us-east-1',
      });
      ids.push(service.id);
      await env.of<SluiceObject>('QueryEndpoint').apply(
        `endpoint-${i}`,
        {
          serviceId: service.id,
          roles: ['sql_console_read_only'],
          allowedOrigins: ORIGINS[0],
          ...(secret ? { credentialsRef: { name: secret } } : {}),
        },
        annotations,
      );
    }
    this.servicesOf.set(env.namespace, ids);
  }

  /** The namespace whose endpoint's service the call names, if any. */
  whose(call: CallRecord): string | undefined {
    return [...this.servicesOf].find(([, ids]) =>
      ids.some((id) => call.path.includes(`/services/${id}/`)),
    )?.[0];
  }

  /** The calls made for `env`'s endpoints. */
  of(env: OperatorEnv, calls: CallRecord[]): CallRecord[] {
    return calls.filter((call) => this.whose(call) === env.namespace);
  }
}

/**
 * The calls as a failed assertion shows them: one line each, its time from `since` (ms), the namespace it was
 * made for (`-`: none of the endpoints', e.g. a list), method, route and status.
 */
export function timeline(calls: CallRecord[], since: number, owners: CallOwners): string {
  return calls
    .map((c) => `${at(c) - since} ${owners.whose(c) ?? '-'} ${c.method} ${c.route} ${c.status}`)
    .join('\n');
}

/** Until every `endpoint-<i>` of each env is Ready. */
export async function endpointsReady(...envs: Array<[OperatorEnv, number]>): Promise<void> {
  for (const [env, count] of envs) {
    for (let i = 0; i < count; i++) {
      await env.of<SluiceObject>('QueryEndpoint').waitFor(`endpoint-${i}`, 'Ready', isReady, 120_000);
    }
  }
}

/** Until the calls `env`'s emulator has logged so far have left the cloud's window. */
export async function setupCallsOutOfWindow(env: OperatorEnv): Promise<void> {
  const last = Math.max(...(await env.calls()).map(at));
  await until(
    'the setup calls to leave the window',
    () => Date.now() > last + WINDOW_MS + 200,
    2 * WINDOW_MS,
  );
}

/**
 * Edits `env`'s `count` query endpoints one after another every 250 ms (8 endpoints: 8 user calls a second
 * asked of a key that serves 1) until `stop()`, which resolves with the number of edits.
 */
export function keepEditing(env: OperatorEnv, count: number): { stop(): Promise<number> } {
  const endpoints = env.of<SluiceObject>('QueryEndpoint');
  let editing = true;
  let edits = 0;
  const editor = (async () => {
    while (editing) {
      await endpoints.patchSpec(`endpoint-${edits % count}`, {
        allowedOrigins: ORIGINS[(Math.floor(edits / count) + 1) % 2],
      });
      edits++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    async stop() {
      editing = false;
      await editor;
      return edits;
    },
  };
}
