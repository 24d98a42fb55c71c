import { parseOwnerRecord } from '../../managed/index.ts';
import type { Alert } from '../../cloud/schemas/alert.ts';
import { byNameThenId, type OrganizationExport } from '../shared/export-step.ts';
import { exportAlert, noteOwner } from './mapping.ts';

/**
 * Alerts live in the alerting API: exported only with its keys, and only for a whole organization or a
 * cluster name (they carry no tags to select by; an alert's owner is recorded in its note).
 */
export const alertExport: OrganizationExport = {
  scope: 'organization',
  position: 1,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('alerts not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('alerts not exported: they carry no tags for --selector to match');
    const listed: Alert[] = await walk.call(walk.alerting.listAlerts());
    const alerts = listed.filter((alert) => {
      if (walk.ownedBy === undefined) return true;
      const record = parseOwnerRecord(noteOwner(alert));
      if (!record || record.cluster !== walk.ownedBy || record.name.startsWith('sha256-')) return false;
      walk.ownedAs(alert.id, record);
      return true;
    });
    alerts.sort(byNameThenId((a) => a.name ?? ''));
    walk.progress(`listed ${alerts.length} alert${alerts.length === 1 ? '' : 's'}`);
    for (const alert of alerts)
      walk.named('Alert', alert.name ?? '', alert.id, 'alert', () => exportAlert(alert));
  },
};
