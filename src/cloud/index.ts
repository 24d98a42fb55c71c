// The cloud clients: typed management and alerting clients on undici, with quota, retries and redaction.
export * from './errors.ts';
export * from './hooks.ts';
export * from './transport.ts';
export * from './responses.ts';
export * from './http.ts';
export * from './cloud-client.ts';
export * from './redaction.ts';
export * from './quota.ts';
export * from './retry.ts';
export * from './management-client.ts';
export * from './alerting-client.ts';
