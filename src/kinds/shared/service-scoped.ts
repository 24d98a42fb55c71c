import { z } from 'zod';
import { reasonNames, type KindReasons } from '../../base/reasons.ts';
import {
  externalIdOf,
  NOT_READY_YET,
  type DriftRead,
  type PlainIdUse,
  type ReferenceDeclaration,
  type ManagedObject,
} from '../../managed/index.ts';
import { LocalObjectReference, managedStatusFields } from './common.ts';
import type { PrinterColumn } from './descriptor.ts';
import { immutable, type CelRule } from './meta.ts';

// The fields and rules every kind that lives in a cloud service shares (a Pipe, a query endpoint, a reverse
// private endpoint): the service by reference or by id, exactly one, fixed once the resource exists.

/** `serviceRef` and `serviceId`; `what` ends the sentence "The DatabaseService (in this namespace) …". */
export const serviceFields = (what: string) => ({
  serviceRef: LocalObjectReference.optional().describe(
    `The DatabaseService (in this namespace) ${what}. Exactly one of serviceRef and serviceId.`,
  ),
  serviceId: z
    .uuid()
    .optional()
    .describe('The cloud id of a service sluice does not manage, instead of serviceRef.'),
});

/** Exactly one of `serviceRef` and `serviceId`, and neither changes after create (`hint` says what to do). */
export const serviceRules = (hint: string): CelRule[] => [
  {
    rule: 'has(self.serviceRef) != has(self.serviceId)',
    message: 'exactly one of serviceRef and serviceId must be set',
    fieldPath: '.serviceRef',
  },
  immutable('serviceRef', hint),
  immutable('serviceId', hint),
];

/** The status fields every managed kind has, and the resolved service id (a delete needs it once the service is gone). */
export const serviceScopedStatusFields = (what: string) => ({
  ...managedStatusFields,
  serviceId: z.string().max(64).optional().describe(`The cloud id of the service ${what}.`),
});

/** A spec that names its service by `serviceRef` (a DatabaseService here) or by a plain `serviceId`. */
export interface ServiceScoped extends ManagedObject {
  spec: ManagedObject['spec'] & { serviceRef?: { name: string }; serviceId?: string };
}

/** The printer column of every service-scoped kind: the DatabaseService it names (empty for a serviceId). */
export const SERVICE_COLUMN: PrinterColumn = {
  name: 'Service',
  type: 'string',
  jsonPath: '.spec.serviceRef.name',
};

/** Cloud states in which a dependant can work with the service (an idle one is woken when needed). */
const USABLE_STATES = ['running', 'idle', 'awaking'];

/** The reference every service-scoped kind declares: resolved id kept in `status.serviceId`. */
export function serviceReference<R extends ServiceScoped>(): ReferenceDeclaration<R> {
  return {
    name: 'service',
    kind: 'DatabaseService',
    objectName: (resource) => resource.spec.serviceRef?.name,
    plainId: (resource) => resource.spec.serviceId,
    statusField: 'serviceId',
    notUsableBecause: (service, dependant) => {
      const state = service.status?.state;
      // A dependant that exists in the cloud (made or adopted) can still be observed: only its writes need a
      // running service, and they say so themselves (ServiceGate). One to be created waits.
      const exists = dependant.status?.id !== undefined || externalIdOf(dependant) !== undefined;
      if (state === 'stopped' && exists) return undefined;
      if (state === 'stopped') return 'is stopped (sluice never starts a service for its dependants)';
      return typeof state === 'string' && USABLE_STATES.includes(state) ? undefined : NOT_READY_YET;
    },
  };
}

/** The reason of a `serviceId` naming a service this namespace may not reach, as each such kind declares it. */
export const SERVICE_ID_REASONS = {
  ServiceIdNotAllowed: {
    condition: 'Ready=False',
    end: 'wait',
    kstatus: 'InProgress',
    argocd: 'Progressing',
    means:
      '`spec.serviceId` names a service of another namespace that grants this one no use of it (a CloudIdGrant there), or one made outside sluice that the administrator does not allow this namespace; nothing is sent',
  },
} as const satisfies KindReasons;

const { ServiceIdNotAllowed } = reasonNames(SERVICE_ID_REASONS);

/** A plain `serviceId`: the service it names must be this namespace's, or granted to it. */
export function servicePlainIds(resource: ServiceScoped): PlainIdUse[] {
  const id = resource.spec.serviceId;
  return id ? [{ field: 'serviceId', id, reason: ServiceIdNotAllowed, heldBy: 'DatabaseService' }] : [];
}

/**
 * The drift read of a service-scoped object observed from its service's list (`pipes`,
 * `reversePrivateEndpoints`): one list per service, named by the service's cloud id once known, else by
 * the DatabaseService it names, so every object of the same service shares it.
 */
export function serviceListRead(
  resource: ServiceScoped & { status?: { serviceId?: unknown } },
  list: string,
): DriftRead<'management'> {
  const serviceId = resource.status?.serviceId ?? resource.spec.serviceId;
  const service =
    typeof serviceId === 'string' ? serviceId : `DatabaseService ${resource.spec.serviceRef?.name}`;
  return { api: 'management', list: `${list} of ${service}` };
}
