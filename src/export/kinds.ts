/** The kinds `sluice export` writes, in the order a reader meets them. */
export const EXPORTED_KINDS = [
  'DatabaseService',
  'Pipe',
  'ReversePrivateEndpoint',
  'QueryEndpoint',
  'Alert',
] as const;
export type ExportedKind = (typeof EXPORTED_KINDS)[number];
