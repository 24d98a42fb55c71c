import type { z } from 'zod';
import type { PrinterColumn } from './descriptor.ts';

/**
 * A kind sluice reads but does not manage (a grant): a CRD of its own, watched and read by the operator, with
 * no status, no finalizer and nothing in the cloud.
 */
export interface GrantSchema {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: z.ZodType;
  printerColumns: PrinterColumn[];
}
