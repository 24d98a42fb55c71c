import { z } from 'zod';
import type { ManagedObject } from '../../managed/index.ts';
import { GRID_COLUMNS, OBJECT_NAME_MAX, TILES_MAX } from '../../cloud/schemas/clickstack.ts';
import { managedSpecFields, managedStatusFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules } from '../shared/meta.ts';

// The spec is the dashboard body of the alerting API under the same names, without ids: a tile is named by its
// `name`, unique in the dashboard, and keeps the cloud id it has for as long as it keeps its name.

const Tags = z
  .array(z.string().min(1).max(256).describe('A tag.'))
  .max(49)
  .optional()
  .describe('Tags shown in the alerting console.');

const Tile = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .describe('The tile name, unique in the dashboard: alerts name the tile by it (Alert spec.tile).'),
    x: z
      .number()
      .int()
      .min(0)
      .max(GRID_COLUMNS - 1)
      .describe('Column of its left edge (0-23).'),
    y: z.number().int().min(0).max(10_000).describe('Row of its top edge.'),
    w: z.number().int().min(1).max(GRID_COLUMNS).describe('Width in columns (x + w at most 24).'),
    h: z.number().int().min(1).max(1_000).describe('Height in rows.'),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ 'x-kubernetes-preserve-unknown-fields': true })
      .describe('The chart, as the alerting API takes it (displayType, sourceId, select, where, ...).'),
  })
  .describe('One tile.');

const DashboardFields = z.object({
  name: z.string().min(1).max(OBJECT_NAME_MAX).describe('The dashboard name in the cloud.'),
  tags: Tags,
  tiles: z.array(Tile).max(TILES_MAX).describe('The tiles, each named.'),
  ...managedSpecFields('Delete'),
});

export const DASHBOARD_POLICY = policyFields(DashboardFields, { fixed: [] });

export const DashboardSpec = withRules(
  DashboardFields.extend({ fieldPolicy: fieldPolicySchema('Dashboard', DASHBOARD_POLICY) }).describe(
    'The desired dashboard.',
  ),
  {
    rule: 'self.tiles.all(t, self.tiles.exists_one(o, o.name == t.name))',
    message: 'tile names must be unique: alerts name a tile by it',
    fieldPath: '.tiles',
  },
  {
    rule: `self.tiles.all(t, t.x + t.w <= ${GRID_COLUMNS})`,
    message: `a tile ends past column ${GRID_COLUMNS} (x + w must be at most ${GRID_COLUMNS})`,
    fieldPath: '.tiles',
  },
);
export type DashboardSpec = z.infer<typeof DashboardSpec>;

export const DashboardStatus = z
  .object({
    ...managedStatusFields,
    tiles: z
      .array(
        z
          .object({
            name: z.string().max(256).describe('The tile name.'),
            id: z.string().max(64).describe('Its cloud id.'),
          })
          .describe('One tile.'),
      )
      .max(TILES_MAX)
      .optional()
      .describe("Each tile's cloud id, by name: what an Alert's spec.tile resolves to."),
    createdAt: z.string().max(64).optional().describe('When the cloud created the dashboard (ISO 8601).'),
    updatedAt: z
      .string()
      .max(64)
      .optional()
      .describe('When the cloud last changed the dashboard (ISO 8601).'),
  })
  .describe('What sluice last observed of the dashboard.');

export interface Dashboard extends ManagedObject {
  spec: DashboardSpec;
  status?: z.infer<typeof DashboardStatus>;
}
