import type { CloudSnapshot } from '../../cloud/list-snapshot.ts';
import {
  externalIdOf,
  ownerRecord,
  parseOwnerRecord,
  type LostCreate,
  type ManagedObject,
  type OwnedCandidate,
  type Owner,
} from '../../managed/index.ts';
import { createdSince, listedSince } from './cloud-calls.ts';
import { ConnectedClient } from './connected-client.ts';
import { ownedAmong } from './owner-note.ts';

/**
 * What the clients of the alerting kinds share: their objects are read through the key's list of them (one
 * list serves every object of the key), and each records its owner on the object itself, which a rebuild
 * reads back. A kind says which list, how the record is read, and how one object is fetched when the list
 * does not hold it.
 */
export abstract class ListedAlertingClient<Cloud extends { id: string }> extends ConnectedClient {
  /** The key's list of this kind's cloud objects. */
  protected abstract list(): CloudSnapshot<Cloud>;
  /** The owner record the cloud object carries, if any. */
  protected abstract ownerOf(object: Cloud): string | undefined;
  /** The object of this id, asked of the cloud when the list does not hold it (undefined: gone). */
  protected abstract fetch(id: string): Promise<Cloud | undefined>;

  /** The record this object writes on what it creates. */
  protected get record(): string {
    return ownerRecord(this.context.owner);
  }

  /**
   * The owner record `object` is to carry, and the difference while it carries another: one adopted by id
   * keeps its own (none, or another's); any other records this object's owner.
   */
  protected recordOn(
    resource: ManagedObject,
    object: Cloud,
  ): { record: string; unheldDifferences: string[] } {
    const carried = this.ownerOf(object);
    if (externalIdOf(resource) !== undefined) return { record: carried ?? '', unheldDifferences: [] };
    return { record: this.record, unheldDifferences: carried !== this.record ? ['owner'] : [] };
  }

  protected read(id: string): Promise<Cloud | undefined> {
    const { alerting, freshnessMs } = this.cloud;
    return this.list().read(id, freshnessMs, () => this.fetch(id), alerting);
  }

  /** After a lost create: the list as it stood after the create ended (an older one cannot show it). */
  protected listedAfter(lost: LostCreate): Promise<Cloud[]> {
    return this.list().all(listedSince(lost, this.cloud.freshnessMs));
  }

  /**
   * After a lost create: the object `matches` picks that the create made, by the date the cloud gives it
   * (`createdSince`), from the list as it stood after the create ended. Without `lost` nothing was sent.
   */
  protected async createdAfter(
    lost: LostCreate | undefined,
    matches: (object: Cloud) => boolean,
  ): Promise<string | undefined> {
    if (!lost) return undefined;
    // Not every alerting schema declares `createdAt`: an object without one is never matched by date.
    const objects = (await this.listedAfter(lost)) as (Cloud & { createdAt?: string })[];
    return createdSince(objects, lost.intent, matches, this.context.claimedBy);
  }

  async recordedOwner(_resource: unknown, id: string): Promise<Owner | undefined> {
    const object = await this.read(id);
    return object && parseOwnerRecord(this.ownerOf(object));
  }

  async findOwned(): Promise<OwnedCandidate[]> {
    // A key without the alerting keys says so (CredentialsMissing) before anything is listed.
    if (!this.cloud.alerting) return [];
    const objects = await this.list().all(this.cloud.freshnessMs);
    return ownedAmong(objects, (object) => this.ownerOf(object));
  }
}
