// Under the real quota (10 requests / 10 s per key, the cloud's and the operator's): one namespace keeps
// editing its objects' specs, and another namespace holding the same key makes one change. The key's user
// calls are shared fairly between the namespaces, so the quiet change goes through in its turn, not behind
// the noisy namespace's edits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import {
  putSameKey,
  startOperatorEnv,
  isReady,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';

const NOISY_OBJECTS = 8;
/** The emulator's window: every call in it counts against the key's 10. */
const WINDOW_MS = 10_000;
const ORIGINS = ['a.example.com', 'b.example.com'];

const at = (call: CallRecord) => Date.parse(call.timestamp);

/** The most calls that arrived within any `windowMs`. */
function busiestWindow(calls: CallRecord[], windowMs: number): number {
  const times = calls.map(at).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

async function until<T>(what: string, look: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(clusterSkipReason())('user changes of two namespaces on one key', () => {
  let quiet: OperatorEnv;
  let noisy: OperatorEnv;
  /** The service ids each namespace's query endpoints name: a call's path says whose it is. */
  const servicesOf = new Map<string, string[]>();
  const whose = (call: CallRecord) =>
    [...servicesOf].find(([, ids]) => ids.some((id) => call.path.includes(`/services/${id}/`)))?.[0];

  async function endpoints(env: OperatorEnv, count: number, secret?: string) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { service } = await env.cloud.createService({
        name: `${env === noisy ? 'noisy' : 'quiet'} ${i}`,
        provider: 'aws',
        region: 'us-east-1',
      });
      ids.push(service.id);
      await env.of<SluiceObject>('QueryEndpoint').apply(`endpoint-${i}`, {
        serviceId: service.id,
        roles: ['sql_console_read_only'],
        allowedOrigins: ORIGINS[0],
        ...(secret ? { credentialsRef: { name: secret } } : {}),
      });
    }
    servicesOf.set(env.namespace, ids);
  }

  beforeAll(async () => {
    quiet = await startOperatorEnv('quiet-editor', { rateLimit: undefined });
    noisy = await startOperatorEnv('noisy-editor', {}, { sharing: quiet });
    // The same key under a Secret of the noisy namespace: one budget.
    await putSameKey(noisy, 'same-key', quiet);
    await endpoints(noisy, NOISY_OBJECTS, 'same-key');
    await endpoints(quiet, 1);
    // The setup's own calls leave the cloud's window before the operator spends the key.
    const lastSetupCall = Math.max(...(await quiet.calls()).map(at));
    await new Promise((r) => setTimeout(r, Math.max(0, lastSetupCall + WINDOW_MS + 200 - Date.now())));
    await quiet.startOperator({
      namespace: `${quiet.namespace},${noisy.namespace}`,
      managementQuota: '10/10s',
    });
    for (const [env, count] of [
      [noisy, NOISY_OBJECTS],
      [quiet, 1],
    ] as const) {
      for (let i = 0; i < count; i++) {
        await env.of<SluiceObject>('QueryEndpoint').waitFor(`endpoint-${i}`, 'Ready', isReady, 120_000);
      }
    }
  }, 240_000);
  afterAll(async () => {
    await noisy?.close();
    await quiet?.close();
  });

  it("applies a quiet namespace's change in its turn while another namespace keeps editing, within the key's 10 calls per 10 s", async () => {
    const noisyEndpoints = noisy.of<SluiceObject>('QueryEndpoint');
    let editing = true;
    let edits = 0;
    // The noisy namespace edits one of its endpoints every 250 ms: 8 user calls a second asked of a key
    // that serves 1.
    const editor = (async () => {
      while (editing) {
        await noisyEndpoints.patchSpec(`endpoint-${edits % NOISY_OBJECTS}`, {
          allowedOrigins: ORIGINS[(Math.floor(edits / NOISY_OBJECTS) + 1) % 2],
        });
        edits++;
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    try {
      await quiet.clearCalls();
      // The noisy namespace's edits have spent the key for two windows before the quiet one asks: the
      // budget frees one slot at a time, as it does under steady load.
      await until(
        'the noisy edits to spend two windows of the key',
        async () => {
          const calls = (await quiet.calls()).filter((c) => whose(c) === noisy.namespace);
          return calls.length >= 20 ? calls : undefined;
        },
        60_000,
      );

      const asked = Date.now();
      await quiet.of<SluiceObject>('QueryEndpoint').patchSpec('endpoint-0', { allowedOrigins: ORIGINS[1] });
      const applied = await until(
        "the quiet namespace's change to reach the cloud",
        async () =>
          (await quiet.calls()).find(
            (c) =>
              c.method === 'POST' &&
              c.status === 200 &&
              whose(c) === quiet.namespace &&
              (c.body as { allowedOrigins?: string } | undefined)?.allowedOrigins === ORIGINS[1],
          ),
        120_000,
      );
      const waitedMs = at(applied) - asked;
      editing = false;
      await editor;

      const calls = await quiet.calls();
      const meanwhile = calls.filter((c) => at(c) >= asked && at(c) <= at(applied));
      const quietCalls = meanwhile.filter((c) => whose(c) === quiet.namespace).length;
      const noisyCalls = meanwhile.filter((c) => whose(c) === noisy.namespace).length;
      // Its share: the quiet namespace's calls (a GET and the POST) take turns with the noisy namespace's,
      // one noisy call at most before each, not behind the noisy backlog (measured: quiet 2, noisy 1–2; with
      // first come, first served: noisy 9). The budget is spent in bursts (slots granted together free
      // together), so the change waits for the window that was spent when it was made, then takes its turns.
      expect(quietCalls).toBeGreaterThanOrEqual(2);
      // (On a loaded machine one more noisy call has slipped in: 4, still far from first come, first served.)
      expect(noisyCalls).toBeLessThanOrEqual(4);
      expect(waitedMs).toBeLessThan(WINDOW_MS + 100 + 2_000);
      expect(busiestWindow(calls, WINDOW_MS)).toBeLessThanOrEqual(10);
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
    } finally {
      editing = false;
      await editor;
    }
  }, 180_000);
});
