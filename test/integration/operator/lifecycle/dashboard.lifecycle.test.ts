import { describe, expect, it } from 'vitest';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { ALERTING_ROUTES } from '../../../../src/cloud/alerting-client.ts';
import {
  alertOnTile,
  genericWebhook,
  twoTileDashboard,
  WEBHOOK_SECRET,
  webhookSecretData,
} from '../../../../tools/fixtures/alert.ts';
import { condition, isReadyWithId, writes, type SluiceObject, useOperatorEnv } from '../support.ts';
import { planDocuments } from '../plan-in-process.ts';

const DASHBOARD = ALERTING_ROUTES.dashboard;
const VALIDATE = ALERTING_ROUTES.dashboardValidate;

describe.skipIf(clusterSkipReason())('Dashboard lifecycle on a real apiserver against the emulator', () => {
  const env = useOperatorEnv('dashboard-lifecycle');
  const dashboards = () => env.of<SluiceObject>('Dashboard');
  const alerts = () => env.of<SluiceObject>('Alert');
  const store = () => env.emulator.store;
  const tilesOf = (id: string) => store().dashboards.get(id)?.tiles ?? [];

  it('an alert on each tile: the alerts wait for the dashboard, then watch the ids its tiles got', async () => {
    await env.putSecret(WEBHOOK_SECRET, webhookSecretData());
    await alerts().apply('errors', alertOnTile('errors', 'ingest', 'errors', 'on-call'));
    await alerts().apply('lag', alertOnTile('lag', 'ingest', 'lag', 'on-call'));
    await env.of('Webhook').apply('on-call', genericWebhook('on-call'));
    await dashboards().apply('ingest', twoTileDashboard('ingest'));

    const dashboard = await dashboards().waitFor('ingest', 'Ready', isReadyWithId);
    const [errors, lag] = tilesOf(dashboard.status!.id!);
    expect(dashboard.status).toMatchObject({
      tiles: [
        { name: 'errors', id: errors!.id },
        { name: 'lag', id: lag!.id },
      ],
    });
    for (const [name, tile] of [
      ['errors', errors],
      ['lag', lag],
    ] as const) {
      const alert = await alerts().waitFor(name, 'Ready', isReadyWithId);
      expect(store().alerts.get(alert.status!.id!)).toMatchObject({
        dashboard: dashboard.status!.id,
        tileId: tile!.id,
      });
    }
    // Checked by the API's validate call before the create; nothing else was sent for the dashboard.
    const sent = writes(await env.calls()).filter((c) => c.route.startsWith(ALERTING_ROUTES.dashboards));
    expect(sent.map((c) => `${c.method} ${c.route}`)).toEqual([
      `POST ${VALIDATE}`,
      `POST ${ALERTING_ROUTES.dashboards}`,
    ]);
  });

  it('re-applied unchanged sends nothing; an edit to one tile is one PUT that keeps every tile id and both alerts', async () => {
    const id = (await dashboards().get('ingest'))!.status!.id!;
    const before = tilesOf(id).map((tile) => tile.id);
    const alertIds = [...store().alerts.keys()];
    await env.clearCalls();
    await dashboards().annotate('ingest', { 'sluice.dev/reconcile-requested-at': new Date().toISOString() });
    await env.freshLook('Dashboard', 'ingest');
    expect(writes(await env.calls())).toEqual([]);

    const edited = twoTileDashboard('ingest');
    edited.tiles[1] = { ...edited.tiles[1]!, h: 6 };
    await dashboards().patchSpec('ingest', { tiles: edited.tiles });
    await dashboards().waitFor('ingest', 'edited', () => tilesOf(id)[1]?.h === 6);
    const sent = writes(await env.calls()).filter((c) => c.route.startsWith(ALERTING_ROUTES.dashboards));
    expect(sent.map((c) => `${c.method} ${c.route}`)).toEqual([`POST ${VALIDATE}`, `PUT ${DASHBOARD}`]);
    expect(tilesOf(id).map((tile) => tile.id)).toEqual(before);
    expect([...store().alerts.keys()]).toEqual(alertIds);
  });

  it('an alert naming a tile the dashboard does not have is refused, nothing sent, until it names one', async () => {
    await alerts().apply('typo', alertOnTile('typo', 'ingest', 'latency', 'on-call'));
    const refused = await alerts().waitFor(
      'typo',
      'InvalidReference',
      (a) => condition(a, 'Synced')?.reason === 'InvalidReference',
    );
    expect(condition(refused, 'Synced')!.message).toContain('errors, lag');
    expect([...store().alerts.values()].filter((alert) => alert.name === 'typo')).toEqual([]);
    await alerts().patchSpec('typo', { tile: 'errors' });
    await alerts().waitFor('typo', 'Ready', isReadyWithId);
  });

  it("sluice plan of a dashboard the API refuses shows the validate call's answer, and nothing is stored", async () => {
    const bad = twoTileDashboard('broken');
    bad.tiles[1] = { ...bad.tiles[1]!, config: { displayType: 'sparkline', sourceId: 'metrics' } };
    const before = store().dashboards.size;
    await env.clearCalls();
    const document = {
      apiVersion: 'sluice.dev/v1alpha1',
      kind: 'Dashboard',
      metadata: { name: 'broken', namespace: env.namespace },
      spec: bad,
    };
    const { stdout } = await planDocuments(env, [document]);
    expect(stdout).toContain('tiles[1].config.displayType: must be one of line');
    expect(store().dashboards.size).toBe(before);
    const sent = writes(await env.calls());
    expect(sent.map((c) => `${c.method} ${c.route}`)).toEqual([`POST ${VALIDATE}`]);
  });

  it('a Dashboard whose alerts are still there waits on delete; then goes with them', async () => {
    const id = (await dashboards().get('ingest'))!.status!.id!;
    await dashboards().remove('ingest');
    const waiting = await dashboards().waitFor(
      'ingest',
      'waiting',
      (d) => condition(d, 'Ready')?.reason === 'WaitingForDependants',
    );
    expect(condition(waiting, 'Ready')!.message).toMatch(/Alert (errors|lag)/);
    await alerts().removeUntilGone('errors', 'lag', 'typo');
    await dashboards().waitFor('ingest', 'gone', (d) => d === undefined);
    expect(store().dashboards.get(id)).toBeUndefined();
  });
});
