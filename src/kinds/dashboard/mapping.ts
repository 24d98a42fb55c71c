// The Dashboard's mapping between spec and cloud, pure: the body (`dashboardBody`, each tile with the cloud id
// its name has), the cloud dashboard in the spec's terms (`observedDashboard`), the differences
// (`diffDashboard`), the status (`dashboardStatus`) and the export mapping (`exportDashboard`).
import { isDeepStrictEqual } from 'node:util';
import type { DashboardSpec } from './schema.ts';
import type { DashboardBody } from '../../cloud/alerting-client.ts';
import type { Dashboard } from '../../cloud/schemas/clickstack.ts';
import { ownerNote, splitOwnerTag } from '../shared/owner-note.ts';

type SpecTile = DashboardSpec['tiles'][number];

/** A tile in the spec's terms: its id left out, absent fields left out. */
function specTile(tile: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, series: _series, ...rest } = tile;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
}

/** The tiles' cloud ids by name, as the cloud holds them: what keeps each tile, and the alerts on it. */
export const tileIds = (dashboard: Dashboard | undefined): Map<string, string> =>
  new Map((dashboard?.tiles ?? []).map((tile) => [tile.name, tile.id]));

/**
 * The create and replace body. Every tile the cloud has by the same name carries its id: the replace keeps it
 * and the alerts on it (a tile sent without its id gets a new one, and the cloud deletes the old one's alerts).
 * The owner record is one of the tags.
 */
export function dashboardBody(
  spec: DashboardSpec,
  ids: ReadonlyMap<string, string>,
  record: string,
): DashboardBody {
  return {
    name: spec.name,
    tags: [...(spec.tags ?? []), ownerNote(record)],
    tiles: spec.tiles.map((tile: SpecTile) => {
      const id = ids.get(tile.name);
      return { ...(id === undefined ? {} : { id }), ...specTile(tile) } as DashboardBody['tiles'][number];
    }),
  };
}

/** The cloud dashboard in the spec's terms: no ids, no owner tag. */
export function observedDashboard(dashboard: Dashboard): Record<string, unknown> {
  const { tags } = splitOwnerTag(dashboard.tags);
  return {
    name: dashboard.name,
    ...(tags.length > 0 ? { tags } : {}),
    tiles: dashboard.tiles.map((tile) => specTile(tile)),
  };
}

export const dashboardOwner = (dashboard: Dashboard) => splitOwnerTag(dashboard.tags).record;

/** The spec fields whose cloud value differs; tiles compare as a whole, in order. */
export function diffDashboard(spec: DashboardSpec, dashboard: Dashboard): string[] {
  const observed = observedDashboard(dashboard);
  const desired: Record<string, unknown> = {
    name: spec.name,
    ...(spec.tags?.length ? { tags: spec.tags } : {}),
    tiles: spec.tiles.map((tile) => specTile(tile)),
  };
  return ['name', 'tags', 'tiles'].filter((field) => !isDeepStrictEqual(desired[field], observed[field]));
}

export function dashboardStatus(dashboard: Dashboard): Record<string, unknown> {
  const { createdAt, updatedAt } = dashboard as { createdAt?: string; updatedAt?: string };
  return {
    tiles: dashboard.tiles.map(({ name, id }) => ({ name, id })),
    ...(createdAt === undefined ? {} : { createdAt }),
    ...(updatedAt === undefined ? {} : { updatedAt }),
  };
}

/** The spec that adopts a dashboard as it is; one whose tiles share a name, or use `series`, cannot be. */
export function exportDashboard(
  dashboard: Dashboard,
): { spec: Record<string, unknown> } | { unexpressible: string } {
  const names = dashboard.tiles.map((tile) => tile.name);
  if (new Set(names).size !== names.length)
    return { unexpressible: 'two tiles share a name, which alerts name a tile by' };
  if (dashboard.tiles.some((tile) => tile.series !== undefined))
    return { unexpressible: 'a tile uses series, which a spec has no field for' };
  return { spec: observedDashboard(dashboard) };
}
