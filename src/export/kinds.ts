import { KIND_SCHEMAS } from '../kinds/schemas.ts';

/** The kinds `sluice export` writes: every kind sluice serves. */
export const EXPORTED_KINDS = KIND_SCHEMAS.map((schema) => schema.kind) as [string, ...string[]];
export type ExportedKind = string;
