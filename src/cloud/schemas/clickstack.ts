// The alerting API's objects an alert hangs on (webhooks, saved searches, dashboards with tiles) and what they
// read from (sources, connections), as the self-hosted `/api/v2/…` and the cloud `…/services/{id}/clickstack/…`
// paths exchange them. A request field the API does not know is stripped, as the real service's validation
// does (a malformed known one is a 400 naming it); responses are loose.
import { z } from 'zod';
import { NonEmptyString } from './common.ts';

export const OBJECT_NAME_MAX = 1024;
/** Tags of saved searches and dashboards: long enough for sluice's owner record (sluice's bound). */
export const TAG_MAX = 512;
const Name = z.string().min(1).max(OBJECT_NAME_MAX);
const StringMap = z.record(z.string(), z.string());

// ---- webhooks ----

export const WEBHOOK_SERVICES = ['slack', 'incidentio', 'generic'] as const;
/** Fields a slack webhook refuses: slack takes only its URL. */
export const SLACK_REFUSES = ['headers', 'queryParams', 'body'] as const;

/**
 * Webhook create and update body. `headers` and `queryParams` are write-only (never returned). On update, an
 * omitted `description` or `body` is cleared; omitted `headers`/`queryParams` are kept (`{}` clears them), unless
 * `url` or `service` changes: then omitted ones are cleared too.
 */
export const WebhookRequest = z
  .object({
    name: Name,
    service: z.enum(WEBHOOK_SERVICES),
    url: z.url({ protocol: /^https?$/ }),
    description: z.string().max(4096).optional(),
    body: z.string().max(100_000).optional(),
    headers: StringMap.optional(),
    queryParams: StringMap.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.service !== 'slack') return;
    for (const field of SLACK_REFUSES)
      if (body[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'is not allowed for the slack service' });
  });
export type WebhookRequest = z.infer<typeof WebhookRequest>;

export const Webhook = z.looseObject({
  id: z.string(),
  name: z.string(),
  service: z.string(),
  url: z.string().optional(),
  description: z.string().optional(),
  body: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Webhook = z.infer<typeof Webhook>;

/** The most webhooks one page of `GET /webhooks` holds: `limit`'s bound and default. */
export const WEBHOOK_PAGE_MAX = 1000;

/** `GET /webhooks` pages with `limit` (1..1000, default 1000) and `offset`. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(WEBHOOK_PAGE_MAX).default(WEBHOOK_PAGE_MAX),
  offset: z.coerce.number().int().min(0).default(0),
});

// ---- saved searches ----

export const WHERE_LANGUAGES = ['sql', 'lucene'] as const;

/** Saved search create and replace body: the PUT replaces it whole. */
export const SavedSearchRequest = z.object({
  name: Name,
  sourceId: NonEmptyString,
  select: z.string().default(''),
  where: z.string().default(''),
  whereLanguage: z.enum(WHERE_LANGUAGES).default('lucene'),
  orderBy: z.string().default(''),
  tags: z.array(z.string().min(1).max(TAG_MAX)).max(50).default([]),
  /** The pinned sidebar filters, kept as sent; none when left out. */
  filters: z.array(z.unknown()).default([]),
});
export type SavedSearchRequest = z.infer<typeof SavedSearchRequest>;

export const SavedSearch = z.looseObject({
  id: z.string(),
  name: z.string(),
  sourceId: z.string(),
  select: z.string().optional(),
  where: z.string().optional(),
  whereLanguage: z.string().optional(),
  orderBy: z.string().optional(),
  tags: z.array(z.string()).optional(),
  filters: z.array(z.unknown()).optional(),
});
export type SavedSearch = z.infer<typeof SavedSearch>;

// ---- dashboards ----

export const GRID_COLUMNS = 24;
/** How a tile's chart is drawn (`config.displayType`). */
export const DISPLAY_TYPES = [
  'line',
  'stacked_bar',
  'table',
  'number',
  'search',
  'markdown',
  'heatmap',
  'pie',
] as const;
export const TILES_MAX = 200;
const GridInt = z.number().int().min(0);

/**
 * A dashboard tile. Its `id` is the server's: a tile sent without one gets a new id, a tile sent with its id keeps
 * it (and the alerts on it). The chart itself (`config`, or the older `series`) is kept as sent.
 */
export const TileRequest = z.object({
  id: NonEmptyString.max(64).optional(),
  name: Name,
  x: GridInt.max(GRID_COLUMNS - 1),
  y: GridInt,
  w: GridInt.min(1).max(GRID_COLUMNS),
  h: GridInt.min(1),
  config: z.record(z.string(), z.unknown()).optional(),
  series: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type TileRequest = z.infer<typeof TileRequest>;

/** Dashboard create, replace (PUT) and validate body. */
export const DashboardRequest = z
  .object({
    name: Name,
    tiles: z.array(TileRequest).max(TILES_MAX),
    tags: z.array(z.string().min(1).max(TAG_MAX)).max(50).default([]),
    filters: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.tiles.forEach((tile, index) => {
      const display = tile.config?.displayType;
      if (display !== undefined && !(DISPLAY_TYPES as readonly unknown[]).includes(display))
        ctx.addIssue({
          code: 'custom',
          path: ['tiles', index, 'config', 'displayType'],
          message: `must be one of ${DISPLAY_TYPES.join(', ')}`,
        });
      if (tile.x + tile.w > GRID_COLUMNS)
        ctx.addIssue({
          code: 'custom',
          path: ['tiles', index, 'w'],
          message: `makes the tile end past column ${GRID_COLUMNS} (x + w must be at most ${GRID_COLUMNS})`,
        });
      if (tile.id === undefined) return;
      if (seen.has(tile.id))
        ctx.addIssue({ code: 'custom', path: ['tiles', index, 'id'], message: 'is used by another tile' });
      seen.add(tile.id);
    });
  });
export type DashboardRequest = z.infer<typeof DashboardRequest>;

export const Tile = z.looseObject({
  id: z.string(),
  name: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  config: z.record(z.string(), z.unknown()).optional(),
  series: z.array(z.record(z.string(), z.unknown())).optional(),
});
export type Tile = z.infer<typeof Tile>;

export const Dashboard = z.looseObject({
  id: z.string(),
  name: z.string(),
  tiles: z.array(Tile),
  tags: z.array(z.string()).optional(),
  filters: z.array(z.unknown()).optional(),
});
export type Dashboard = z.infer<typeof Dashboard>;

/** The validate call's answer: it stores nothing. `normalized` is the body as a create would store it. */
export const DashboardValidation = z.looseObject({
  valid: z.boolean(),
  errors: z.array(z.looseObject({ path: z.string(), message: z.string() })),
  normalized: z.unknown().optional(),
});
export type DashboardValidation = z.infer<typeof DashboardValidation>;

// ---- sources and connections ----

export const ALERTING_SOURCE_KINDS = ['log', 'trace', 'metric', 'session', 'promql'] as const;

/** A source's own expressions (SQL over its table), each a string: which apply depends on its kind. */
export const SOURCE_EXPRESSIONS = [
  'displayedTimestampValueExpression',
  'defaultTableSelectExpression',
  'implicitColumnExpression',
  'serviceNameExpression',
  'bodyExpression',
  'severityTextExpression',
  'eventAttributesExpression',
  'resourceAttributesExpression',
  'traceIdExpression',
  'spanIdExpression',
  'parentSpanIdExpression',
  'spanNameExpression',
  'spanKindExpression',
  'durationExpression',
  'statusCodeExpression',
  'statusMessageExpression',
] as const;
/** The other sources a source links to (a log source's traces, ...), by id. */
export const SOURCE_LINKS = ['logSourceId', 'traceSourceId', 'metricSourceId', 'sessionSourceId'] as const;
/** A metric source's table of each metric type. */
export const METRIC_TABLE_TYPES = ['gauge', 'histogram', 'sum', 'summary'] as const;
export const EXPRESSION_MAX = 10_000;

const fieldsOf = <K extends string, T extends z.ZodType>(keys: readonly K[], schema: T) =>
  Object.fromEntries(keys.map((key) => [key, schema])) as Record<K, T>;

/**
 * Source create and replace body: the fields every kind has, the expressions, links and metric tables the
 * real API's source schema names (which apply is the kind's), each checked as a string or id; anything else is
 * stripped. The kind-specific required fields are not checked (**sluice**).
 */
export const SourceRequest = z.object({
  name: Name,
  kind: z.enum(ALERTING_SOURCE_KINDS),
  connection: NonEmptyString,
  from: z.object({ databaseName: NonEmptyString, tableName: z.string() }),
  timestampValueExpression: NonEmptyString,
  querySettings: z.array(z.object({ setting: NonEmptyString, value: z.string() })).optional(),
  ...fieldsOf(SOURCE_EXPRESSIONS, z.string().max(EXPRESSION_MAX).optional()),
  durationPrecision: z.number().int().min(0).max(9).optional(),
  ...fieldsOf(SOURCE_LINKS, NonEmptyString.optional()),
  metricTables: z.object(fieldsOf(METRIC_TABLE_TYPES, z.string().optional())).optional(),
});
export type SourceRequest = z.infer<typeof SourceRequest>;

export const Source = z.looseObject({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  connection: z.string(),
  // The real API answers a metric source's table as null (its tables are in metricTables).
  from: z.looseObject({ databaseName: z.string(), tableName: z.string().nullish() }),
  timestampValueExpression: z.string().optional(),
  querySettings: z.array(z.looseObject({ setting: z.string(), value: z.string() })).nullish(),
});
export type Source = z.infer<typeof Source>;

/** Connection create body; `password` is write-only. */
export const ConnectionRequest = z.object({
  name: Name,
  host: z.url({ protocol: /^https?$/ }),
  username: NonEmptyString,
  password: z.string(),
  hyperdxSettingPrefix: z.string().optional(),
  prometheusEndpoint: z.string().optional(),
});
/** Connection update: `password` omitted keeps it; an optional field sent as null is cleared. */
export const ConnectionUpdate = ConnectionRequest.extend({
  password: z.string().optional(),
  hyperdxSettingPrefix: z.string().nullable().optional(),
  prometheusEndpoint: z.string().nullable().optional(),
});

export const Connection = z.looseObject({
  id: z.string(),
  name: z.string(),
  host: z.string(),
  username: z.string(),
});
export type Connection = z.infer<typeof Connection>;
