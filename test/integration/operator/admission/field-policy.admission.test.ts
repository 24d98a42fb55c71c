import { describe, expect, it } from 'vitest';
import { kindNamed } from '../../../../src/kinds/index.ts';
import { clusterSkipReason } from '../../../harness/test-cluster.ts';
import { useAdmission } from './admission.ts';

const service = { name: 'analytics', provider: 'aws', region: 'us-east-1' };
const pipe = {
  serviceId: '00000000-0000-4000-8000-000000000001',
  name: 'events',
  source: { kafka: { brokers: 'b:9092', topics: 't' } },
  destination: { database: 'default', table: 'events' },
};

/** What `sluice plan -f` says of the same spec: the kind's zod schema, as plan reads its input. */
function planRefusal(kind: string, spec: Record<string, unknown>): string | undefined {
  const parsed = kindNamed(kind)!.spec.safeParse(spec);
  return parsed.success ? undefined : parsed.error.issues.map((issue) => issue.message).join('; ');
}

const REFUSED = [
  [
    'DatabaseService',
    { ...service, fieldPolicy: { reportOnly: ['tags', 'maxReplicaMemory'] } },
    'spec.fieldPolicy.reportOnly: maxReplicaMemory is not a field of DatabaseService',
  ],
  [
    'DatabaseService',
    { ...service, fieldPolicy: { createOnly: ['region'] } },
    'spec.fieldPolicy.createOnly: region is fixed when the cloud creates the DatabaseService: a policy on it would mean nothing',
  ],
  [
    'DatabaseService',
    { ...service, fieldPolicy: { additive: ['privateEndpointIds'] } },
    'spec.fieldPolicy.additive: privateEndpointIds is not a list others add to (additive takes ipAccessList, tags)',
  ],
  [
    'DatabaseService',
    { ...service, fieldPolicy: { reportOnly: ['tags'], additive: ['tags'] } },
    'spec.fieldPolicy: tags has two policies; give it one',
  ],
  [
    'Pipe',
    { ...pipe, fieldPolicy: { additive: ['fieldMappings'] } },
    'spec.fieldPolicy.additive: fieldMappings is not a list others add to (Pipe has none)',
  ],
  [
    'Pipe',
    { ...pipe, fieldPolicy: { reportOnly: ['source.kafka.topics'] } },
    'spec.fieldPolicy.reportOnly: source.kafka.topics is fixed when the cloud creates the Pipe: a policy on it would mean nothing',
  ],
] as const;

describe.skipIf(clusterSkipReason())('spec.fieldPolicy admission, and sluice plan agreeing', () => {
  const services = useAdmission('DatabaseService', 'fps');
  const pipes = useAdmission('Pipe', 'fpp');
  const admit = (kind: string, spec: Record<string, unknown>) =>
    (kind === 'Pipe' ? pipes : services).admit(spec);

  it.each(REFUSED)('refuses a %s policy naming the path and why: %#', async (kind, spec, message) => {
    expect(await admit(kind, spec)).toContain(message);
    expect(planRefusal(kind, spec)).toContain(message);
  });

  it('accepts a policy on fields the cloud changes in place, nested ones included', async () => {
    const policy = { createOnly: ['maxReplicaMemoryGb'], reportOnly: ['tags'], additive: ['ipAccessList'] };
    expect(await admit('DatabaseService', { ...service, fieldPolicy: policy })).toBe('accepted');
    const pipePolicy = { reportOnly: ['scaling.replicas', 'settings'], createOnly: ['destination.columns'] };
    expect(await admit('Pipe', { ...pipe, fieldPolicy: pipePolicy })).toBe('accepted');
    expect(planRefusal('Pipe', { ...pipe, fieldPolicy: pipePolicy })).toBeUndefined();
  });
});
