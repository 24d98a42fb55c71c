import type { KubeObject } from './cache.ts';

/** An owner reference as the apiserver serves it. */
export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A Secret as the apiserver serves it (to a GET, or in a watch). */
export interface SecretObject extends KubeObject {
  metadata: KubeObject['metadata'] & {
    namespace: string;
    labels?: Record<string, string>;
    ownerReferences?: readonly OwnerReference[];
  };
  data?: Record<string, string>;
}

/** A Secret's `data` is base64 on the wire; sluice works with the plain strings. */
export const encodeSecretData = (values: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));

export const decodeSecretData = (values: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
