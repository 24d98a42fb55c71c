import { describe, expect, it } from 'vitest';
import type { CloudConnection } from '../../../../src/cloud-access/connection.ts';
import { alertController } from '../../../../src/kinds/alert/controller.ts';
import type { Alert } from '../../../../src/kinds/alert/schema.ts';
import { Waiting, type ConnectContext, type ManagedObject } from '../../../../src/managed/index.ts';

/** The Dashboard `ops`, whose spec has the tiles cpu and disk, with the tiles it has made so far in status. */
const ops = (made: Record<string, string>): ManagedObject => ({
  metadata: { name: 'ops', namespace: 'team', uid: 'u-ops' },
  spec: { tiles: [{ name: 'cpu' }, { name: 'disk' }] },
  status: { id: 'dash-1', tiles: Object.entries(made).map(([name, id]) => ({ name, id })) },
});

/** The connection of an Alert on `tile` of `ops`: only the references matter before any call. */
function connected(tile: string, dashboard: ManagedObject) {
  const alert = {
    metadata: { name: 'cpu-high', namespace: 'team', uid: 'u-alert' },
    spec: { name: 'cpu-high', source: 'tile', dashboardRef: { name: 'ops' }, tile },
  } as unknown as Alert;
  const context = {
    references: { dashboard: [{ id: 'dash-1', object: dashboard }] },
  } as unknown as ConnectContext<CloudConnection>;
  return alertController.connect(alert, context);
}

describe('an Alert on a Dashboard tile', () => {
  it('waits, as a value of its connection, for a tile the Dashboard has and has not made yet', () => {
    const { waiting } = connected('cpu', ops({ disk: 'tile-2' }));
    expect(waiting).toBeInstanceOf(Waiting);
    expect(waiting).toMatchObject({
      reason: 'WaitingForReference',
      message: 'Dashboard ops has not made tile cpu yet',
    });
  });

  it('waits for nothing once the tile is made, nor for a tile the Dashboard’s spec does not have', () => {
    expect(connected('cpu', ops({ cpu: 'tile-1' })).waiting).toBeUndefined();
    expect(connected('memory', ops({ cpu: 'tile-1' })).waiting).toBeUndefined();
  });
});
