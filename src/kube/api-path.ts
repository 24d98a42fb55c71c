/** A resource type of the apiserver; `group: ''` is the core API (`/api/v1`). */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
}

export const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
export const EVENTS: ResourceType = { group: '', version: 'v1', plural: 'events' };
export const LEASES: ResourceType = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };

/**
 * The apiserver path of a collection, `/apis/<group>/<version>[/namespaces/<ns>]/<plural>` (`/api/v1/...` for
 * the core group), or of one object in it when `name` is given.
 */
export function apiPath(resource: ResourceType, namespace?: string, name?: string): string {
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${base}${scope}/${resource.plural}${object}`;
}
