import { ListedAlertingClient } from '../shared/listed-alerting-client.ts';
import { type Source } from './schema.ts';
import type { SourceBody } from '../../cloud/alerting-client.ts';
import type { Source as CloudSource } from '../../cloud/schemas/clickstack.ts';
import {
  type LostCreate,
  type CloudRecords,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { ignoreNotFound } from '../shared/cloud-calls.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import { diffSource, observedSource, sourceBody, sourceOwner } from './mapping.ts';

/** The Source controller: its cloud client, loaded by the registry only when the kind runs. */
export const sourceController: KindController<Source, SourceBody> = {
  connect: (_resource, context) => connectionOf(new SourceClient(context)),
};

/**
 * Over the alerting API's sources: the cloud path has no GET by id, so every read is of the list (shared by
 * every Source of the key). The owner is recorded in a query setting (`log_comment`).
 */
class SourceClient
  extends ListedAlertingClient<CloudSource>
  implements ExternalClient<Source, SourceBody>, CloudRecords<Source>
{
  protected list() {
    return this.cloud.snapshots.sources;
  }

  protected ownerOf(source: CloudSource) {
    return sourceOwner(source);
  }

  protected async fetch(id: string) {
    return (await this.cloud.alerting.listSources()).find((source) => source.id === id);
  }

  /**
   * After a crash: the source of this name recorded as this object's that no other object holds. Sources carry
   * no creation time to tell it from an older one, and need none: the record names this object alone, so a
   * source holding it is this object's (as a rebuild would take it back).
   */
  async findCreated(resource: Source, lost: LostCreate | undefined): Promise<string | undefined> {
    if (!lost) return undefined;
    const sources = await this.listedAfter(lost);
    const ours = sources.find(
      (source: CloudSource) =>
        source.name === resource.spec.name &&
        sourceOwner(source) === this.record &&
        this.context.claimedBy(source.id) === undefined,
    );
    return ours?.id;
  }

  async observe(resource: Source, id: string): Promise<Observed<Source, SourceBody>> {
    const source = await this.read(id);
    if (!source) return { exists: false };
    const { record, unheldDifferences } = this.recordOn(resource, source);
    return {
      exists: true,
      observed: observedSource(source),
      diff: (spec: Source['spec']) => ({
        differences: diffSource(spec, source),
        plan: sourceBody(spec, record),
        available: true,
      }),
      unheldDifferences,
      status: {},
    };
  }

  async create(resource: Source) {
    const source = await this.cloud.alerting.createSource(sourceBody(resource.spec, this.record));
    return { externalId: source.id };
  }

  /** The PUT replaces it whole. */
  async update(_resource: Source, id: string, observation: { plan: SourceBody }): Promise<void> {
    await this.cloud.alerting.replaceSource(id, observation.plan);
  }

  /** The SavedSearches that name it are gone first (they wait on it). */
  async delete(_resource: Source, id: string): Promise<'gone'> {
    await ignoreNotFound(this.cloud.alerting.deleteSource(id));
    return 'gone';
  }

  /** From the key's sources list; the list again, fresh, when it does not show `id`. */
}
