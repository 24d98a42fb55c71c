import { z } from 'zod';
import type { ManagedObject } from '../../managed/index.ts';
import {
  ALERTING_SOURCE_KINDS,
  EXPRESSION_MAX,
  METRIC_TABLE_TYPES,
  OBJECT_NAME_MAX,
} from '../../cloud/schemas/clickstack.ts';
import { managedSpecFields, managedStatusFields } from '../shared/common.ts';
import { fieldPolicySchema, policyFields } from '../shared/field-policy.ts';
import { withRules } from '../shared/meta.ts';

// The spec is the source body of the alerting API under the same names: the fields every kind has, the
// expressions, the links to other sources and a metric source's tables. The API keeps other fields a console
// may set (materialized views, highlighted attributes); a spec has none of them, and a replace sends none.

/** The query setting sluice records the owner in: ClickHouse keeps it with each query the source runs. */
export const OWNER_SETTING = 'log_comment';

const expression = (what: string) =>
  z.string().max(EXPRESSION_MAX).optional().describe(`The SQL expression of ${what}.`);
const sourceId = (what: string) =>
  z.string().min(1).max(64).optional().describe(`The cloud id of the ${what} source linked to this one.`);

const SourceFields = z.object({
  name: z.string().min(1).max(OBJECT_NAME_MAX).describe('The source name in the cloud.'),
  kind: z.enum(ALERTING_SOURCE_KINDS).describe(`What the table holds: ${ALERTING_SOURCE_KINDS.join(', ')}.`),
  connection: z
    .string()
    .min(1)
    .max(64)
    .describe('The cloud id of the connection (the ClickHouse service) the source reads from.'),
  from: z
    .object({
      databaseName: z.string().min(1).max(256).describe('The database.'),
      tableName: z.string().max(256).describe('The table; empty for a metric source (see metricTables).'),
    })
    .describe('Where the data is.'),
  timestampValueExpression: z
    .string()
    .min(1)
    .max(EXPRESSION_MAX)
    .describe("The DateTime column or expression of the table's primary key."),
  displayedTimestampValueExpression: expression('the time shown and ordered by'),
  defaultTableSelectExpression: expression('the columns a search shows by default'),
  implicitColumnExpression: expression('the column a search without a field name looks in'),
  serviceNameExpression: expression('the service name'),
  bodyExpression: expression("a log's message"),
  severityTextExpression: expression("a log's level"),
  eventAttributesExpression: expression("an event's attributes"),
  resourceAttributesExpression: expression("the resource's attributes"),
  traceIdExpression: expression('the trace id'),
  spanIdExpression: expression('the span id'),
  parentSpanIdExpression: expression("a span's parent span id"),
  spanNameExpression: expression("a span's name"),
  spanKindExpression: expression("a span's kind"),
  durationExpression: expression("a span's duration"),
  durationPrecision: z
    .number()
    .int()
    .min(0)
    .max(9)
    .optional()
    .describe("The decimal digits of durationExpression's unit of a second: 3 for ms, 9 for ns."),
  statusCodeExpression: expression("a span's status code"),
  statusMessageExpression: expression("a span's status message"),
  logSourceId: sourceId('log'),
  traceSourceId: sourceId('trace'),
  metricSourceId: sourceId('metric'),
  sessionSourceId: sourceId('session'),
  metricTables: z
    .object(
      Object.fromEntries(
        METRIC_TABLE_TYPES.map((type) => [
          type,
          z.string().min(1).max(256).optional().describe(`The table of ${type} metrics.`),
        ]),
      ) as Record<(typeof METRIC_TABLE_TYPES)[number], z.ZodOptional<z.ZodString>>,
    )
    .optional()
    .describe("A metric source's table of each metric type."),
  querySettings: z
    .array(
      z
        .object({
          setting: z.string().min(1).max(256).describe('The ClickHouse setting.'),
          value: z.string().max(1_024).describe('Its value.'),
        })
        .describe('One setting.'),
    )
    .max(49)
    .optional()
    .describe(
      `ClickHouse settings of every query on the source; not ${OWNER_SETTING}, which records the owner.`,
    ),
  ...managedSpecFields('Delete'),
});

export const SOURCE_POLICY = policyFields(SourceFields, { fixed: [] });

export const SourceSpec = withRules(
  SourceFields.extend({ fieldPolicy: fieldPolicySchema('Source', SOURCE_POLICY) }).describe(
    'The desired source.',
  ),
  {
    rule: `!has(self.querySettings) || self.querySettings.all(s, s.setting != '${OWNER_SETTING}')`,
    message: `${OWNER_SETTING} is where sluice records the source's owner: use another setting`,
    fieldPath: '.querySettings',
  },
);
export type SourceSpec = z.infer<typeof SourceSpec>;

export const SourceStatus = z
  .object({ ...managedStatusFields })
  .describe('What sluice last observed of the source.');

export interface Source extends ManagedObject {
  spec: SourceSpec;
  status?: z.infer<typeof SourceStatus>;
}
