// Under the alerting API's real quota (100 requests / 60 s per token, the cloud's and the operator's): an
// alerting team's whole setup applied at once asks more than one minute's budget. Every object gets through
// without a 429 and within the token's 100 per window, and an edit made while the budget is spent is sent in
// its turn, not behind the whole backlog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERTING_QUOTA } from '../../../../src/cloud/quota.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { untilValue } from '../../../support/wait.ts';
import {
  ALERTS,
  alertOnSearch,
  alertOnTile,
  errorSearch,
  genericWebhook,
  WEBHOOK_SECRET,
  webhookSecretData,
} from '../../../../tools/fixtures/alert.ts';
import {
  isReadyWithId,
  REAL_QUOTA_MODE,
  startOperatorEnv,
  type CallRecord,
  type OperatorEnv,
  type SluiceObject,
} from '../support.ts';
import { at, busiestWindow } from './noisy-editor.ts';

const { requests: CALLS_PER_WINDOW, windowMs: WINDOW_MS } = ALERTING_QUOTA;
/** The window as the operator's scheduler spends it: a slot stays spent the window + 100 ms after its call. */
const HOLD_MS = WINDOW_MS + 100;

const WEBHOOKS = ['on-call', 'team-chat', 'pager'];
const SEARCHES = ['errors', 'timeouts', 'restarts'];
const TILES = ['errors', 'lag', 'latency', 'throughput'];
const DASHBOARD = 'ingest';
/** Alerts on the dashboard's tiles and on the saved searches, each notifying one of the webhooks. */
const ALERT_COUNT = 150;

const dashboard = {
  name: DASHBOARD,
  tags: ['team-a'],
  tiles: TILES.map((name, i) => ({
    name,
    x: (i % 2) * 6,
    y: Math.floor(i / 2) * 3,
    w: 6,
    h: 3,
    config: { displayType: 'line', sourceId: 'logs' },
  })),
};

const alertSpec = (i: number) => {
  const name = `alert-${i}`;
  const webhook = WEBHOOKS[i % WEBHOOKS.length]!;
  return i % 2 === 0
    ? alertOnTile(name, DASHBOARD, TILES[(i / 2) % TILES.length]!, webhook)
    : alertOnSearch(name, SEARCHES[((i - 1) / 2) % SEARCHES.length]!, webhook);
};
/** The edit made to the first alert while the budget is spent. */
const EDITED_THRESHOLD = 250;
const ALERT_NAMES = Array.from({ length: ALERT_COUNT }, (_, i) => `alert-${i}`);

const alerting = (calls: CallRecord[]) => calls.filter((c) => c.key === 'alerts');
const creates = (calls: CallRecord[]) =>
  alerting(calls).filter((c) => c.method === 'POST' && c.route === ALERTS);

describe.skipIf(clusterSkipReason())("an alerting team's setup under the alerting API's real quota", () => {
  let env: OperatorEnv;

  beforeAll(async () => {
    env = await startOperatorEnv('alerting-quota', REAL_QUOTA_MODE.emulator);
    await env.putSecret(WEBHOOK_SECRET, webhookSecretData());
    // Under a Lease of its own that nobody held before: no predecessor's window to wait out first.
    await env.startOperator({
      ...REAL_QUOTA_MODE.operator,
      leaderElect: true,
      leaderElectionNamespace: env.namespace,
    });
  });
  afterAll(async () => env?.close());

  it(
    `makes it all Ready with no 429 and at most ${CALLS_PER_WINDOW} calls in any 60 s, and sends an edit made while the budget is spent in the next window, ahead of the backlog`,
    async () => {
      const alerts = env.of<SluiceObject>('Alert');
      const [edited, ...backlog] = ALERT_NAMES as [string, ...string[]];
      for (const name of WEBHOOKS) await env.of('Webhook').apply(name, genericWebhook(name));
      for (const name of SEARCHES) await env.of('SavedSearch').apply(name, errorSearch(name));
      await env.of('Dashboard').apply(DASHBOARD, dashboard);
      await alerts.apply(edited, alertSpec(0));
      const editedId = (await alerts.waitFor(edited, 'the first alert Ready', isReadyWithId, HOLD_MS)).status!
        .id!;
      await Promise.all(backlog.map((name, i) => alerts.apply(name, alertSpec(i + 1))));

      // The token's 100 calls of the window are spent, and every alert of the backlog has asked for its create
      // and been told when to come back: an edit now finds the whole backlog queued ahead of it.
      await untilValue(
        'the setup to spend a window of the token',
        async () => alerting(await env.calls()).length,
        (count) => count >= CALLS_PER_WINDOW,
        HOLD_MS,
      );
      await env.idle();
      // Checked on the cloud's call log, not assumed from the wait: creates of the backlog are still to be sent.
      const queued = ALERT_COUNT - creates(await env.calls()).length;
      expect(queued, 'creates still queued when the edit is made').toBeGreaterThan(0);
      const asked = Date.now();
      await alerts.patchSpec(edited, { threshold: EDITED_THRESHOLD });
      const put = (await untilValue(
        'the edit to reach the cloud',
        async () =>
          alerting(await env.calls()).find(
            (c) =>
              c.method === 'PUT' &&
              c.path.endsWith(`/${editedId}`) &&
              (c.body as { threshold?: number } | undefined)?.threshold === EDITED_THRESHOLD,
          ),
        (call) => call !== undefined,
        3 * HOLD_MS,
      ))!;

      for (const [kind, names] of [
        ['Webhook', WEBHOOKS],
        ['SavedSearch', SEARCHES],
        ['Dashboard', [DASHBOARD]],
        ['Alert', ALERT_NAMES],
      ] as const) {
        for (const name of names)
          await env.of<SluiceObject>(kind).waitFor(name, `${kind} ${name} Ready`, isReadyWithId, 3 * HOLD_MS);
      }
      const calls = alerting(await env.calls());
      const created = creates(calls);
      // More than one window's budget (measured: 178-196 calls).
      expect(calls.length).toBeGreaterThan(CALLS_PER_WINDOW);
      expect(created).toHaveLength(ALERT_COUNT);
      expect(put.status).toBe(200);
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      expect(busiestWindow(calls, WINDOW_MS)).toBeLessThanOrEqual(CALLS_PER_WINDOW);
      // In its turn: the edit waits for the window that was spent when it was made (measured: 57.7-57.9 s), not
      // for the creates queued before it, which it goes ahead of (measured: 68-70 of the 68-70 still to come;
      // sent behind the backlog, none would be). Its list is its own read: it waits for no background list.
      expect(at(put) - asked).toBeLessThan(HOLD_MS + 5_000);
      expect(
        created.filter((c) => at(c) > at(put)).length,
        `creates sent after the edit, of the ${queued} still queued when it was made`,
      ).toBeGreaterThan(0);
    },
    6 * HOLD_MS,
  );
});
