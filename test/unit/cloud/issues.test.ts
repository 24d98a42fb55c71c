import { describe, expect, it } from 'vitest';
import {
  describeFirstIssue,
  PipeUpdateRequest,
  ServiceCreateRequest,
} from '../../../src/cloud/schemas/index.ts';

const base = { name: 'analytics', provider: 'aws', region: 'us-east-1' };
const firstIssue = (schema: typeof ServiceCreateRequest | typeof PipeUpdateRequest, body: unknown) => {
  const result = schema.safeParse(body);
  if (result.success) throw new Error('expected the body to be rejected');
  return describeFirstIssue(result.error);
};

describe('validation messages', () => {
  it('start with the path of the offending field, array indexes included', () => {
    expect(
      firstIssue(ServiceCreateRequest, {
        ...base,
        ipAccessList: [{ source: '10.0.0.0/8' }, { source: 'x' }],
      }),
    ).toBe('ipAccessList[1].source must be an IP address or CIDR range');
  });

  it('say "is required" for a missing field and name the expected type for a wrong one', () => {
    expect(firstIssue(ServiceCreateRequest, { provider: 'aws', region: 'us-east-1' })).toBe(
      'name is required',
    );
    expect(firstIssue(ServiceCreateRequest, { ...base, numReplicas: 2.5 })).toBe(
      'numReplicas must be an integer',
    );
  });

  it('keep a schema rule message as written', () => {
    expect(firstIssue(ServiceCreateRequest, { ...base, name: 'my-service' })).toBe(
      'name must contain only letters, digits and spaces',
    );
  });

  it('name an unknown field', () => {
    expect(firstIssue(ServiceCreateRequest, { ...base, colour: 'blue' })).toBe('colour is not a known field');
  });

  it('tell the user a pipe field that cannot change in place needs a replacement', () => {
    expect(firstIssue(PipeUpdateRequest, { source: { kafka: { topics: 'orders' } } })).toBe(
      'source.kafka.topics cannot change after create; the pipe must be replaced',
    );
  });
});
