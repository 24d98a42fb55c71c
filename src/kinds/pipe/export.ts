import type { Pipe } from '../../cloud/schemas/pipe.ts';
import { byNameThenId, plural, type ServiceExport } from '../shared/export-step.ts';
import { withServiceOf } from '../shared/service-export.ts';
import { exportPipe, type ExportedSecret } from './mapping.ts';

/**
 * A service's pipes, after its reverse private endpoints (a kafka source names them by reference). Their
 * credentials are never exported: each is a Secret the user creates, and a setting named like a credential
 * is left out and listed.
 */
export const pipeExport: ServiceExport<Pipe> = {
  scope: 'service',
  position: 2,
  read: (walk, service) =>
    walk.wants('Pipe')
      ? walk
          .call(walk.management.listPipes(service.id))
          .then((pipes) => pipes.sort(byNameThenId((p) => p.name)))
      : undefined,
  summary: (pipes) => [plural(pipes.length, 'pipe')],
  emit: (walk, service, pipes) => {
    for (const pipe of pipes) {
      let secrets: ExportedSecret[] = [];
      let withheld: string[] = [];
      const name = walk.named('Pipe', pipe.name, pipe.id, 'pipe', (pipeName) => {
        const mapped = exportPipe(
          pipe,
          (purpose) => `${pipeName}-${purpose}`,
          (id) => walk.nameOf('ReversePrivateEndpoint', id),
        );
        if ('secrets' in mapped) ({ secrets, withheld } = mapped);
        return withServiceOf(walk, service.id, mapped);
      });
      if (!name) continue;
      for (const field of withheld) walk.withheld(`Pipe ${name}: ${field}`);
      for (const secret of secrets) {
        walk.secretToCreate({
          name: secret.name,
          keys: secret.keys,
          usedBy: `Pipe ${name} (${secret.field})`,
        });
      }
    }
  },
};
