import { GROUP } from '../kinds/shared/common.ts';
import type { KindDescriptor } from '../kinds/shared/descriptor.ts';

/** The name of the policy and of its binding. */
export const OBSERVE_POLICY_NAME = 'sluice-observe-needs-an-id';

/**
 * managementPolicy Observe never creates, so an Observe object must name a cloud id: a CRD rule cannot read
 * annotations, a ValidatingAdmissionPolicy can. Only what the user writes is checked: a status write, and an
 * update that leaves the spec as it was (the operator's finalizer, a deletion), are never refused.
 */
export function observeAdmissionPolicy(kinds: readonly KindDescriptor[]): Record<string, unknown>[] {
  const expression = [
    "!has(object.spec.managementPolicy) || object.spec.managementPolicy != 'Observe'",
    "(has(object.metadata.annotations) && 'sluice.dev/external-id' in object.metadata.annotations)",
    "(has(object.status) && has(object.status.id) && object.status.id != '')",
    "(request.operation == 'UPDATE' && object.spec == oldObject.spec)",
    'has(object.metadata.deletionTimestamp)',
  ].join(' || ');
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: OBSERVE_POLICY_NAME },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [GROUP],
              apiVersions: ['*'],
              operations: ['CREATE', 'UPDATE'],
              resources: kinds.map((kind) => kind.plural),
            },
          ],
        },
        validations: [
          {
            expression,
            message:
              'managementPolicy Observe never creates: set the annotation sluice.dev/external-id to the id of the cloud resource to observe, or use managementPolicy Full',
            reason: 'Invalid',
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: OBSERVE_POLICY_NAME },
      spec: { policyName: OBSERVE_POLICY_NAME, validationActions: ['Deny'] },
    },
  ];
}
