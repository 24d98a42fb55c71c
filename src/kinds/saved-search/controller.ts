import { ListedAlertingClient } from '../shared/listed-alerting-client.ts';
import { type SavedSearch } from './schema.ts';
import type { SavedSearchBody } from '../../cloud/alerting-client.ts';
import type { SavedSearch as CloudSavedSearch } from '../../cloud/schemas/clickstack.ts';
import {
  type LostCreate,
  type CloudRecords,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { ignoreNotFound } from '../shared/cloud-calls.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import {
  diffSavedSearch,
  observedSavedSearch,
  savedSearchBody,
  savedSearchOwner,
  savedSearchStatus,
  withSourceId,
} from './mapping.ts';

/** The SavedSearch controller: its cloud client, loaded by the registry only when the kind runs. */
export const savedSearchController: KindController<SavedSearch, SavedSearchBody> = {
  connect: (_resource, context) => connectionOf(new SavedSearchClient(context)),
};

/** Over the alerting API's saved searches; the owner is recorded as one of its tags. */
class SavedSearchClient
  extends ListedAlertingClient<CloudSavedSearch>
  implements ExternalClient<SavedSearch, SavedSearchBody>, CloudRecords<SavedSearch>
{
  protected list() {
    return this.cloud.snapshots.savedSearches;
  }

  protected ownerOf(search: CloudSavedSearch) {
    return savedSearchOwner(search);
  }

  protected fetch(id: string) {
    return ignoreNotFound(this.cloud.alerting.getSavedSearch(id));
  }

  /** The spec in cloud ids: a sourceRef as the id of its Source. */
  private resolved(spec: SavedSearch['spec']): SavedSearch['spec'] {
    return withSourceId(spec, this.context.references.source?.[0]?.id);
  }

  async findCreated(resource: SavedSearch, lost: LostCreate | undefined): Promise<string | undefined> {
    return this.createdAfter(
      lost,
      (search) => search.name === resource.spec.name && savedSearchOwner(search) === this.record,
    );
  }

  async observe(resource: SavedSearch, id: string): Promise<Observed<SavedSearch, SavedSearchBody>> {
    const search = await this.read(id);
    if (!search) return { exists: false };
    const { record, unheldDifferences } = this.recordOn(resource, search);
    return {
      exists: true,
      observed: observedSavedSearch(search),
      diff: (written: SavedSearch['spec']) => {
        const spec = this.resolved(written);
        return {
          differences: diffSavedSearch(spec, search),
          plan: {
            ...savedSearchBody(spec, record),
            ...(search.filters ? { filters: search.filters } : {}),
          },
          available: true,
        };
      },
      unheldDifferences,
      status: savedSearchStatus(search),
    };
  }

  async create(resource: SavedSearch) {
    const search = await this.cloud.alerting.createSavedSearch(
      savedSearchBody(this.resolved(resource.spec), this.record),
    );
    return { externalId: search.id };
  }

  /** The PUT replaces it whole: pinned filters made in the console are sent back as they are. */
  async update(_resource: SavedSearch, id: string, observation: { plan: SavedSearchBody }): Promise<void> {
    await this.cloud.alerting.replaceSavedSearch(id, observation.plan);
  }

  /** The cloud deletes the alerts on it too: the Alerts that name it are gone first (they wait on it). */
  async delete(_resource: SavedSearch, id: string): Promise<'gone'> {
    await ignoreNotFound(this.cloud.alerting.deleteSavedSearch(id));
    return 'gone';
  }
}
