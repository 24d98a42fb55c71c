import type { Source } from '../../cloud/schemas/clickstack.ts';
import { byNameThenId, ownedByCluster, plural, type OrganizationExport } from '../shared/export-step.ts';
import { exportSource, sourceOwner } from './mapping.ts';

/** Sources, before the saved searches that name them. */
export const sourceExport: OrganizationExport = {
  scope: 'organization',
  position: 0,
  run: async (walk) => {
    if (!walk.alerting)
      return walk.progress('sources not exported: no alerting token (alertsUrl and alertsToken)');
    if (walk.tags) return walk.progress('sources not exported: --selector matches service tags only');
    const listed: Source[] = await walk.call(walk.alerting.listSources());
    const sources = ownedByCluster(walk, listed, sourceOwner);
    sources.sort(byNameThenId((source) => source.name));
    walk.progress(`listed ${plural(sources.length, 'source')}`);
    for (const source of sources)
      walk.named('Source', source.name, source.id, 'source', () => exportSource(source));
  },
};
