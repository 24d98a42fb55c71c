// The Alert's mapping between spec and cloud, pure: the create and replace body (`alertBody`), the differences
// (`diffAlert`), the owner note (`ownerNote`, `noteOwner`), the status (`alertStatus`) and the export mapping
// (`exportAlert`: the cloud object back to the spec that adopts it).
import { isDeepStrictEqual } from 'node:util';
import type { AlertSpec } from './schema.ts';
import type { AlertBody } from '../../cloud/alerting-client.ts';
import { requestBody } from '../../cloud/request-body.ts';
import { ownerNote, recordIn } from '../shared/owner-note.ts';
import { AlertRequest, SAVED_SEARCH_SOURCE_ALIAS, type Alert } from '../../cloud/schemas/alert.ts';

/** The request fields, in the order the API documents them; the spec carries each under its own name. */
const BODY_FIELDS = [
  'threshold',
  'interval',
  'source',
  'thresholdType',
  'channel',
  'dashboardId',
  'tileId',
  'savedSearchId',
  'groupBy',
  'name',
  'message',
] as const satisfies readonly (keyof AlertBody)[];
type BodyField = (typeof BODY_FIELDS)[number];

/** The cloud ids an alert's references stand for, once resolved. */
export interface ReferencedIds {
  webhookId?: string | undefined;
  dashboardId?: string | undefined;
  tileId?: string | undefined;
  savedSearchId?: string | undefined;
}

/**
 * The spec with every reference replaced by the cloud id it stands for (`channel.webhookRef` → `webhookId`,
 * `dashboardRef` and `tile` → `dashboardId` and `tileId`, `savedSearchRef` → `savedSearchId`): what the body is
 * made of and compared with.
 */
export function withReferencedIds(spec: AlertSpec, ids: ReferencedIds): AlertSpec {
  const { dashboardRef, tile: _tile, savedSearchRef, ...rest } = spec;
  const { webhookRef, ...channel } = spec.channel;
  const resolved: AlertSpec = { ...rest, channel };
  if (webhookRef) resolved.channel = { ...channel, webhookId: ids.webhookId };
  if (dashboardRef) Object.assign(resolved, { dashboardId: ids.dashboardId, tileId: ids.tileId });
  if (savedSearchRef) resolved.savedSearchId = ids.savedSearchId;
  return resolved;
}

/** The fields that say which alert a body is (besides when it was created): what it is named and watches. */
const IDENTITY_FIELDS = ['name', 'source', 'dashboardId', 'tileId', 'savedSearchId'] as const;

/**
 * The create and replace body: every field the spec sets. The replace (PUT) clears what it does not carry,
 * so it is always the whole desired alert, never just the fields that differ.
 */
export function alertBody(spec: AlertSpec): AlertBody {
  const body: Record<string, unknown> = {};
  for (const field of BODY_FIELDS) if (spec[field] !== undefined) body[field] = spec[field];
  return requestBody(AlertRequest, body);
}

/** An alert as the API reports it, in the request's terms (`dashboard` → `dashboardId`, `savedSearch` → `savedSearchId`). */
export function observedBody(alert: Alert): Partial<Record<BodyField, unknown>> {
  const { dashboard, savedSearch, channel } = alert;
  const named: Record<string, unknown> = {
    ...alert,
    dashboardId: dashboard,
    savedSearchId: savedSearch,
    channel: { type: channel.type, webhookId: channel.webhookId },
  };
  return Object.fromEntries(
    BODY_FIELDS.filter((field) => named[field] !== undefined).map((field) => [field, named[field]]),
  );
}

/** The spec fields whose cloud value differs (a field the spec leaves out differs when the cloud has one). */
export function diffAlert(spec: AlertSpec, alert: Alert): string[] {
  const desired: Partial<Record<BodyField, unknown>> = alertBody(spec);
  const observed = observedBody(alert);
  return BODY_FIELDS.filter((field) => !isDeepStrictEqual(desired[field], observed[field]));
}

/** Whether the cloud alert is the one this spec would create: same name and same watched object. */
export function isAlertFor(spec: AlertSpec, alert: Alert): boolean {
  const desired: Partial<Record<BodyField, unknown>> = alertBody(spec);
  const observed = observedBody(alert);
  return IDENTITY_FIELDS.every((field) => desired[field] === observed[field]);
}

/**
 * Alerts carry no tags: the owner record goes in the alert's `note`, a field the cloud keeps as given and
 * that the spec has no place for.
 */
export { ownerNote };

/** The owner record an alert's note holds, if it is one. */
export const noteOwner = (alert: Record<string, unknown>): string | undefined => recordIn(alert.note);

/** Status fields as the cloud reports them. */
export function alertStatus(alert: Alert): Record<string, unknown> {
  const { state, team, silenced, createdAt, updatedAt } = alert;
  return Object.fromEntries(
    Object.entries({ state, team, silenced, createdAt, updatedAt }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}

/** Fields of the real API a spec has no place for: an alert using them would lose them on the first PUT. */
const UNEXPORTED_FIELDS = [
  'scheduleStartAt',
  'scheduleOffsetMinutes',
  'numConsecutiveWindows',
  'thresholdMax',
  'note',
];

/** The manifest names of exported objects an alert's ids point at (undefined: not exported). */
export interface ExportedNames {
  webhook(id: string): string | undefined;
  dashboard(id: string): string | undefined;
  savedSearch(id: string): string | undefined;
}

/**
 * The spec that adopts an alert as it is; the real API's `saved_search` is the spec's `search`. What it hangs
 * on is named by reference when that was exported too (a tile by its name in the dashboard, `tileName`).
 */
export function exportAlert(
  alert: Alert,
  exported?: ExportedNames,
  tileName?: (dashboardId: string, tileId: string) => string | undefined,
): { spec: Record<string, unknown> } | { unexpressible: string } {
  if (!alert.name) return { unexpressible: 'the alert has no name, which a spec needs' };
  const lost = UNEXPORTED_FIELDS.filter(
    (field) => alert[field] !== undefined && alert[field] !== null && !(field === 'note' && noteOwner(alert)),
  );
  if (lost.length > 0) return { unexpressible: `a spec has no field for ${lost.join(', ')}` };
  const spec: Record<string, unknown> = observedBody(alert);
  if (spec.source === SAVED_SEARCH_SOURCE_ALIAS) spec.source = 'search';
  const webhook = alert.channel.webhookId && exported?.webhook(alert.channel.webhookId);
  if (webhook) spec.channel = { type: alert.channel.type, webhookRef: { name: webhook } };
  const search = alert.savedSearch && exported?.savedSearch(alert.savedSearch);
  if (search) {
    delete spec.savedSearchId;
    spec.savedSearchRef = { name: search };
  }
  const dashboard = alert.dashboard && exported?.dashboard(alert.dashboard);
  const tile = dashboard && alert.tileId && tileName?.(alert.dashboard!, alert.tileId);
  if (dashboard && tile) {
    delete spec.dashboardId;
    delete spec.tileId;
    Object.assign(spec, { dashboardRef: { name: dashboard }, tile });
  }
  return { spec };
}
