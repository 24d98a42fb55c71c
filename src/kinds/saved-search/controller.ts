import { ownedAmong } from '../shared/owner-note.ts';
import { type SavedSearch } from './schema.ts';
import type { SavedSearchBody } from '../../cloud/alerting-client.ts';
import type { SavedSearch as CloudSavedSearch } from '../../cloud/schemas/clickstack.ts';
import {
  comparison,
  externalIdOf,
  ownerRecord,
  parseOwnerRecord,
  type ConnectContext,
  type LostCreate,
  type OwnedCandidate,
} from '../../managed/index.ts';
import { createdSince, ignoreNotFound, listedSince } from '../shared/cloud-calls.ts';
import type { CloudConnection } from '../../cloud-access/connection.ts';
import type { KindClient, KindController, Observed } from '../shared/sluice-kind.ts';
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
  connect: (_resource, context) => new SavedSearchClient(context),
};

/** Over the alerting API's saved searches; the owner is recorded as one of its tags. */
class SavedSearchClient implements KindClient<SavedSearch, SavedSearchBody> {
  constructor(private readonly context: ConnectContext<CloudConnection>) {}

  private get cloud() {
    return this.context.cloud;
  }

  private get record() {
    return ownerRecord(this.context.owner);
  }

  /** The spec in cloud ids: a sourceRef as the id of its Source. */
  private resolved(spec: SavedSearch['spec']): SavedSearch['spec'] {
    return withSourceId(spec, this.context.references.source?.[0]?.id);
  }

  async findCreated(resource: SavedSearch, lost: LostCreate | undefined): Promise<string | undefined> {
    if (!lost) return undefined;
    const searches = await this.cloud.snapshots.savedSearches.all(listedSince(lost, this.cloud.freshnessMs));
    const ours = (search: CloudSavedSearch) =>
      search.name === resource.spec.name && savedSearchOwner(search) === this.record;
    return createdSince(
      searches as (CloudSavedSearch & { createdAt?: string })[],
      lost.intent,
      ours,
      this.context.claimedBy,
    );
  }

  async recordedOwner(_resource: SavedSearch, id: string) {
    const search = await this.read(id);
    return search && parseOwnerRecord(savedSearchOwner(search));
  }

  async findOwned(): Promise<OwnedCandidate[]> {
    if (!this.cloud.alerting) return [];
    const searches = await this.cloud.snapshots.savedSearches.all(this.cloud.freshnessMs);
    return ownedAmong(searches, savedSearchOwner);
  }

  async observe(resource: SavedSearch, id: string): Promise<Observed<SavedSearch, SavedSearchBody>> {
    const search = await this.read(id);
    if (!search) return { exists: false };
    const adopted = externalIdOf(resource) !== undefined;
    const record = adopted ? (savedSearchOwner(search) ?? '') : this.record;
    return comparison({
      observed: observedSavedSearch(search),
      diff: (written: SavedSearch['spec']) => {
        const spec = this.resolved(written);
        return { differences: diffSavedSearch(spec, search), spec };
      },
      conclude: ({ plan }) => ({
        plan: {
          ...savedSearchBody(plan.spec, record),
          ...(search.filters ? { filters: search.filters } : {}),
        },
        differences: !adopted && savedSearchOwner(search) !== record ? ['owner'] : [],
        available: true,
        status: savedSearchStatus(search),
      }),
    });
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

  private read(id: string) {
    const { snapshots, freshnessMs } = this.cloud;
    return snapshots.savedSearches.read(id, freshnessMs, () =>
      ignoreNotFound(this.cloud.alerting.getSavedSearch(id)),
    );
  }
}
