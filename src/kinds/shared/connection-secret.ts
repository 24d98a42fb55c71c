import type { ConnectionDetails, ManagedKind, ManagedObject } from '../../managed/index.ts';
import { renderTemplate } from './connection-template.ts';

/**
 * A kind's connection Secret, stated as data in its descriptor: which spec field states the Secret, and
 * what the runtime does with it. One mechanism names and renders every kind's Secret.
 */
export interface ConnectionSecretStatement {
  /** The spec field stating the Secret: its `name`, and for a templated kind its `template`. */
  specField: string;
  /** The name when the spec states none: the object's name and this suffix (without one, the spec must). */
  defaultSuffix?: string;
  /** Further keys are rendered from the details by the statement's `template` (External Secrets' syntax). */
  templated?: boolean;
  requiredKeys: readonly string[];
  /** The annotation whose every new value asks once for new secret values (a password reset). */
  resetAnnotation?: string;
  /** The Secret signs others in (a key's credentials): its users are dependants of the object. */
  usersAreDependants?: boolean;
}

/** What a spec field stating a connection Secret holds. */
interface StatedSecret {
  name?: string;
  template?: Readonly<Record<string, string>>;
}

/** The runtime's connection Secret of a kind, from its statement. */
export function connectionSecretOf<R extends ManagedObject>(
  statement: ConnectionSecretStatement,
): NonNullable<ManagedKind<R, unknown>['connectionSecret']> {
  const { specField, defaultSuffix, templated, ...rest } = statement;
  const stated = (resource: R) => resource.spec[specField] as StatedSecret | undefined;
  const unstated = (resource: R) => {
    // The kind's schema requires the name: only an object that bypassed admission gets here.
    if (defaultSuffix === undefined) throw new Error(`spec.${specField}.name is required`);
    return `${resource.metadata.name}${defaultSuffix}`;
  };
  return {
    ...rest,
    name: (resource) => stated(resource)?.name ?? unstated(resource),
    ...(templated
      ? {
          derive: (resource: R, details: ConnectionDetails) =>
            renderTemplate(stated(resource)?.template ?? {}, details).values,
        }
      : {}),
  };
}
