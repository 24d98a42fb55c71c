import type { DatabaseService } from './schema.ts';
import type { ServiceDiff } from './mapping.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import { DatabaseServiceClient } from './client.ts';

/** The DatabaseService controller: its cloud client, loaded by the registry only when the kind runs. */
export const databaseServiceController: KindController<DatabaseService, ServiceDiff> = {
  connect: (_resource, context) => connectionOf(new DatabaseServiceClient(context)),
};
