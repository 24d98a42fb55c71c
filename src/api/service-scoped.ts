import { z } from 'zod';
import { LocalObjectReference, managedStatusFields } from './common.ts';
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
