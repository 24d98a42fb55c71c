import { z } from 'zod';
import { NonEmptyString } from './common.ts';

export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
export const ALERT_THRESHOLD_TYPES = ['above', 'below'] as const;
export const ALERT_SOURCES = ['tile', 'search'] as const;
export const ALERT_STATES = ['OK', 'PENDING', 'ALERT'] as const;
export const ALERT_NAME_MAX = 512;
export const ALERT_MESSAGE_MAX = 4096;
/** Webhook is the only channel type. */
export const ALERT_CHANNEL_TYPES = ['webhook'] as const;
/** The request fields each source needs: a dashboard tile, or a saved search. */
export const ALERT_SOURCE_FIELDS = {
  tile: ['dashboardId', 'tileId'],
  search: ['savedSearchId'],
} as const satisfies Record<(typeof ALERT_SOURCES)[number], readonly string[]>;
/** The real API's own spelling of the saved-search source, which its official client sends. */
export const SAVED_SEARCH_SOURCE_ALIAS = 'saved_search';
/** Every source a request may name: the contract's and the real API's spelling of a saved search. */
export const ALERT_REQUEST_SOURCES = [...ALERT_SOURCES, SAVED_SEARCH_SOURCE_ALIAS] as const;
const REQUEST_SOURCE_FIELDS: Record<(typeof ALERT_REQUEST_SOURCES)[number], readonly string[]> = {
  ...ALERT_SOURCE_FIELDS,
  [SAVED_SEARCH_SOURCE_ALIAS]: ALERT_SOURCE_FIELDS.search,
};

export const AlertChannel = z.object({ type: z.enum(ALERT_CHANNEL_TYPES), webhookId: NonEmptyString });

/** Alert create (operation 10) and replace (PUT, extension) body. */
export const AlertRequest = z
  .object({
    threshold: z.number(),
    interval: z.enum(ALERT_INTERVALS),
    source: z.enum(ALERT_REQUEST_SOURCES),
    thresholdType: z.enum(ALERT_THRESHOLD_TYPES),
    channel: AlertChannel,
    dashboardId: NonEmptyString.optional(),
    tileId: NonEmptyString.optional(),
    savedSearchId: NonEmptyString.optional(),
    groupBy: NonEmptyString.optional(),
    name: z.string().max(ALERT_NAME_MAX).optional(),
    message: z.string().max(ALERT_MESSAGE_MAX).optional(),
    // The real API's scheduling and range fields (its official client sends them); null = none.
    scheduleStartAt: z.iso.datetime({ offset: true }).nullable().optional(),
    scheduleOffsetMinutes: z.number().int().min(0).optional(),
    numConsecutiveWindows: z.number().int().min(1).optional(),
    thresholdMax: z.number().optional(),
    note: z.string().optional(),
  })
  .superRefine((body, ctx) => {
    for (const field of REQUEST_SOURCE_FIELDS[body.source] as ReadonlyArray<keyof typeof body>) {
      if (body[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `is required when source is ${body.source}` });
      }
    }
  });
export type AlertRequest = z.infer<typeof AlertRequest>;

export const Alert = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  message: z.string().optional(),
  threshold: z.number(),
  interval: z.string(),
  thresholdType: z.string(),
  source: z.string(),
  state: z.string(),
  channel: z.looseObject({ type: z.string(), webhookId: z.string().optional() }),
  team: z.string().optional(),
  tileId: z.string().optional(),
  dashboard: z.string().optional(),
  savedSearch: z.string().optional(),
  dashboardId: z.string().optional(),
  savedSearchId: z.string().optional(),
  groupBy: z.string().optional(),
  silenced: z.boolean().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Alert = z.infer<typeof Alert>;
