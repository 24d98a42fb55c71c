/** The tags sluice keeps on the services it manages: who owns a service, read by every service-scoped kind. */

/**
 * The tag earlier versions put on every service they created (the object's uid), so a crashed create could
 * be found again; the owner tag replaces it (one PATCH, on the next reconcile after an upgrade).
 */
export const UID_TAG = 'sluice.dev/uid';
/** The tag naming the sluice object a service belongs to: `cluster/namespace/DatabaseService/name`. */
export const OWNER_TAG = 'sluice.dev/owner';
/** Tags sluice keeps, not the user: never exported, never compared with spec.tags. */
const SLUICE_TAGS = new Set([UID_TAG, OWNER_TAG]);
export const isSluiceTag = (tag: { key: string }) => SLUICE_TAGS.has(tag.key);
