// The wire schemas of both cloud APIs, written once: the emulator validates with them, the clients type with them.
export * from './common.ts';
export * from './issues.ts';
export * from './service.ts';
export * from './lifecycle.ts';
export * from './pipe.ts';
export * from './reverse-private-endpoint.ts';
export * from './query-endpoint.ts';
export * from './alert.ts';
export * from './api-key.ts';
export * from './clickstack.ts';
