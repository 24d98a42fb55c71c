import { z } from 'zod';

export const QUERY_ENDPOINT_ROLES = ['sql_console_read_only', 'sql_console_admin'] as const;

/** `allowedOrigins` is a comma-separated list of domains; each entry must be non-empty and space-free. */
const AllowedOrigins = z
  .string()
  .refine(
    (value) =>
      value === '' || value.split(',').every((origin) => /^\S+$/.test(origin.trim()) && origin.trim() !== ''),
    { error: 'must be a comma-separated list of domains' },
  );

/** Operation 9 body: an upsert that replaces the whole configuration. */
export const QueryEndpointRequest = z.strictObject({
  roles: z.array(z.enum(QUERY_ENDPOINT_ROLES)).optional(),
  openApiKeys: z.array(z.string().min(1)).optional(),
  allowedOrigins: AllowedOrigins.optional(),
});
export type QueryEndpointRequest = z.infer<typeof QueryEndpointRequest>;

export const QueryEndpoint = z.looseObject({
  id: z.string(),
  roles: z.array(z.string()).optional(),
  openApiKeys: z.array(z.string()).optional(),
  allowedOrigins: z.string().optional(),
});
export type QueryEndpoint = z.infer<typeof QueryEndpoint>;
