import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTING_ROUTES } from '../../../../src/cloud/alerting-client.ts';
import {
  genericWebhook,
  tileAlert,
  tileAlertOn,
  WEBHOOK_SECRET,
  webhookSecretData,
} from '../../../../tools/fixtures/alert.ts';
import {
  condition,
  isReadyWithId,
  loseObjects,
  writes,
  type SluiceObject,
  useOperatorEnv,
} from '../support.ts';

const WEBHOOK = ALERTING_ROUTES.webhook;
const TOKEN = 'first-token-8a7b';

describe.skipIf(clusterSkipReason())('Webhook lifecycle on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('webhook-lifecycle');
  const webhooks = () => env.of<SluiceObject>('Webhook');
  const alerts = () => env.of<SluiceObject>('Alert');
  const stored = (id: string) => env.emulator.store.webhooks.get(id);
  const ownerLine = (name: string) =>
    new RegExp(`\\nsluice\\.dev/owner: [0-9a-f-]{36}/${env.namespace}/Webhook/${name}$`);

  it('an Alert naming a Webhook waits for it, then notifies its cloud id; URL and header come from the Secret', async () => {
    // Applied in the wrong order, and before the Secret: the alert waits for the webhook, the webhook for the Secret.
    await alerts().apply('cpu', tileAlertOn('cpu', 'on-call'));
    await webhooks().apply('on-call', genericWebhook('on-call'));
    const waiting = await alerts().waitFor(
      'cpu',
      'waiting',
      (a) => condition(a, 'Ready')?.status === 'False',
    );
    expect(condition(waiting, 'Ready')!.message).toContain('Webhook on-call');
    await env.putSecret(WEBHOOK_SECRET, webhookSecretData(TOKEN));

    const webhook = await webhooks().waitFor('on-call', 'Ready', isReadyWithId);
    const cloud = stored(webhook.status!.id!)!;
    expect(cloud).toMatchObject({
      name: 'on-call',
      service: 'generic',
      url: webhookSecretData(TOKEN).url,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(cloud.description).toMatch(/^on-call notifications\n/);
    expect(cloud.description).toMatch(ownerLine('on-call'));
    const alert = await alerts().waitFor('cpu', 'Ready', isReadyWithId);
    expect(env.emulator.store.alerts.get(alert.status!.id!)?.channel).toEqual({
      type: 'webhook',
      webhookId: webhook.status!.id,
    });
    expect(alert.status).toMatchObject({ webhookId: webhook.status!.id });
  });

  it('re-applied unchanged sends nothing; a rotated header Secret is one PUT, the URL kept', async () => {
    const id = (await webhooks().get('on-call'))!.status!.id!;
    await env.clearCalls();
    await webhooks().annotate('on-call', { 'sluice.dev/reconcile-requested-at': new Date().toISOString() });
    await env.freshLook('Webhook', 'on-call');
    expect(writes(await env.calls())).toEqual([]);

    await env.putSecret(WEBHOOK_SECRET, { ...webhookSecretData(TOKEN), authorization: 'Bearer second-9d8e' });
    await webhooks().waitFor(
      'on-call',
      'sent',
      () => stored(id)?.headers?.Authorization === 'Bearer second-9d8e',
    );
    const changes = writes(await env.calls());
    expect(changes.map((c) => `${c.method} ${c.route}`)).toEqual([`PUT ${WEBHOOK}`]);
    expect(stored(id)?.url).toBe(webhookSecretData(TOKEN).url);
  });

  it('a header removed from the spec is removed from the cloud', async () => {
    const id = (await webhooks().get('on-call'))!.status!.id!;
    await webhooks().patchSpec('on-call', { headers: null });
    await webhooks().waitFor('on-call', 'headers gone', () => stored(id)?.headers === undefined);
  });

  it('under sluice.dev/drift: report, a URL its Secret moved is drift without its value, and nothing is sent', async () => {
    await env.putSecret('reported-hook', webhookSecretData('report-token-1a'));
    await webhooks().apply('reported', genericWebhook('reported', 'reported-hook'), {
      'sluice.dev/drift': 'report',
    });
    const id = (await webhooks().waitFor('reported', 'Ready', isReadyWithId)).status!.id!;
    await env.clearCalls();

    await env.putSecret('reported-hook', webhookSecretData('report-token-2b'));
    const reported = await webhooks().waitFor('reported', 'url in status.drift', (w) =>
      ((w?.status?.drift ?? []) as { path: string }[]).some((d) => d.path === 'url'),
    );
    expect(reported.status!.drift).toEqual([
      expect.objectContaining({ path: 'url', observed: '(sensitive)' }),
      expect.objectContaining({ path: 'headers', observed: '(sensitive)' }),
    ]);
    expect(condition(reported, 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(JSON.stringify(reported.status)).not.toContain('report-token');
    expect(writes(await env.calls())).toEqual([]);
    expect(stored(id)?.url).toBe(webhookSecretData('report-token-1a').url);
    await webhooks().removeUntilGone('reported');
  });

  it('a Webhook whose Alerts are still there waits on delete, naming them, without a DELETE; then goes with them', async () => {
    const id = (await webhooks().get('on-call'))!.status!.id!;
    await env.clearCalls();
    await webhooks().remove('on-call');
    const waiting = await webhooks().waitFor(
      'on-call',
      'waiting for its alert',
      (w) => condition(w, 'Ready')?.reason === 'WaitingForDependants',
    );
    expect(condition(waiting, 'Ready')).toMatchObject({ status: 'False' });
    expect(condition(waiting, 'Ready')!.message).toContain('Alert cpu');
    expect(writes(await env.calls()).filter((c) => c.route === WEBHOOK)).toEqual([]);

    await alerts().removeUntilGone('cpu');
    await webhooks().waitFor('on-call', 'gone', (w) => w === undefined);
    expect(stored(id)).toBeUndefined();
    expect(
      writes(await env.calls())
        .filter((c) => c.route === WEBHOOK)
        .map((c) => c.status),
    ).toEqual([200]);
  });

  it("an alert sluice does not manage holds the webhook: the cloud's 409 names it in Synced, and the delete ends once it goes", async () => {
    await webhooks().apply('pager', genericWebhook('pager'));
    const id = (await webhooks().waitFor('pager', 'Ready', isReadyWithId)).status!.id!;
    const foreign = await env.alerting.createAlert({
      ...tileAlert('by hand'),
      channel: { type: 'webhook', webhookId: id },
    });
    await webhooks().remove('pager');
    const refused = await webhooks().waitFor(
      'pager',
      'Synced=False',
      (w) => condition(w, 'Synced')?.status === 'False',
    );
    expect(condition(refused, 'Synced')!.message).toContain(foreign.id);
    await env.alerting.deleteAlert(foreign.id);
    await webhooks().waitFor('pager', 'gone', (w) => w === undefined, 60_000);
    expect(stored(id)).toBeUndefined();
  }, 90_000);

  it('a cluster rebuilt from Git takes its webhook and alert back with zero writes', async () => {
    await webhooks().apply('ops', genericWebhook('ops'));
    await alerts().apply('disk', tileAlertOn('disk', 'ops'));
    const ids = {
      webhook: (await webhooks().waitFor('ops', 'Ready', isReadyWithId)).status!.id!,
      alert: (await alerts().waitFor('disk', 'Ready', isReadyWithId)).status!.id!,
    };
    // The cluster is lost: the objects go without their finalizers running.
    await loseObjects(
      env,
      [
        { kind: 'Webhook', name: 'ops' },
        { kind: 'Alert', name: 'disk' },
      ],
      [],
    );
    await env.clearCalls();
    await env.startOperator();
    await webhooks().apply('ops', genericWebhook('ops'));
    await alerts().apply('disk', tileAlertOn('disk', 'ops'));
    expect((await webhooks().waitFor('ops', 'Ready', isReadyWithId)).status!.id).toBe(ids.webhook);
    expect((await alerts().waitFor('disk', 'Ready', isReadyWithId)).status!.id).toBe(ids.alert);
    expect(writes(await env.calls())).toEqual([]);
  }, 90_000);

  it('never shows the URL, a header value or their token in logs, status or Events', async () => {
    const events = await env.core.listNamespacedEvent({ namespace: env.namespace });
    const objects = await Promise.all([webhooks().get('ops'), alerts().get('disk')]);
    expect(events.items.length).toBeGreaterThan(0);
    const everything = JSON.stringify([env.logs, objects, events.items]);
    for (const secret of [TOKEN, 'second-9d8e', 'webhook-token-5e1f', 'hooks.example.com'])
      expect(everything).not.toContain(secret);
  });
});
