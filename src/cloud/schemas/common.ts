import { z } from 'zod';

/** Ids in paths and bodies are uuids; anything else is a 400 that names the parameter. */
export const Uuid = z.uuid();

/** A string the API stores verbatim; empty strings carry no meaning anywhere in the contract. */
export const NonEmptyString = z.string().min(1);

/** `{add, remove}` edits of a list field in a PATCH body; remove is applied before add. */
export const listEdit = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    add: z.array(item).optional(),
    remove: z.array(item).optional(),
  });

/** Management API success envelope; unknown fields are kept so clients survive additions. */
export const managementEnvelope = <T extends z.ZodType>(result: T) =>
  z.looseObject({ status: z.number(), requestId: z.string(), result });

/** Management API error body: `error` is `<CODE>: <message>`. */
export const ManagementErrorBody = z.looseObject({
  status: z.number(),
  error: z.string(),
  requestId: z.string().optional(),
});
export type ManagementErrorBody = z.infer<typeof ManagementErrorBody>;

export const MANAGEMENT_ERROR_CODES = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  424: 'FAILED_DEPENDENCY',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_ERROR',
} as const;
export type ManagementErrorStatus = keyof typeof MANAGEMENT_ERROR_CODES;

/** Alerting API success envelope. */
export const alertingEnvelope = <T extends z.ZodType>(data: T) => z.looseObject({ data });

/** Alerting API error body. */
export const AlertingErrorBody = z.looseObject({ message: z.string() });
