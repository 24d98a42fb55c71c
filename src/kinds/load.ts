import { KINDS } from './index.ts';
import type { KindController, SluiceKind } from './shared/sluice-kind.ts';
import type { ManagedObject } from '../managed/index.ts';

/**
 * Every kind of the registry with its controller loaded, in the registry's order: what the operator and
 * `sluice plan` run. Each controller is loaded here, on first use, never by what only reads the registry.
 */
export async function loadKinds(): Promise<readonly SluiceKind<ManagedObject>[]> {
  return Promise.all(
    KINDS.map(async ({ controller, exportStep: _, ...kind }) => ({
      ...kind,
      ...((await controller()) as KindController<ManagedObject>),
    })),
  );
}
