import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { REDACTED, redactSecrets } from '../cloud/redaction.ts';

/**
 * pino `redact` paths: a second line of defence for anything logged as an object by code that does not use
 * `redactSecrets` first. pino paths match fixed depths only (`*` is one level), so the common depths are
 * listed; `redactSecrets` is the deep one.
 */
export const REDACT_PATHS: string[] = (() => {
  const keys = [
    'authorization',
    'Authorization',
    'password',
    'keySecret',
    'secretKey',
    'token',
    'alertsToken',
    'credentials',
    'accessKey',
    'apiKey',
    'cookie',
    'connectionString',
  ];
  const paths: string[] = [];
  for (const key of keys) {
    paths.push(key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`);
  }
  paths.push(
    'headers.authorization',
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    'body.source.*.credentials',
    'body.source.*.accessKey',
    'body.source.*.schemaRegistry.credentials',
  );
  return paths;
})();

/** The logger options every sluice logger should start from: redaction is on. */
export function loggerOptions(options: LoggerOptions = {}): LoggerOptions {
  const extra = options.redact;
  const extraPaths = Array.isArray(extra) ? extra : (extra?.paths ?? []);
  return {
    ...options,
    // Every field named like a credential, at any depth (`sasl_password` in a pipe's settings too); the
    // paths below catch the common ones even where a formatter is replaced.
    formatters: { ...options.formatters, log: (object) => redactSecrets(object) as Record<string, unknown> },
    redact: { paths: [...REDACT_PATHS, ...extraPaths], censor: REDACTED },
  };
}

/**
 * A pino logger with credential redaction. `destination` lets tests capture the stream.
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const opts = loggerOptions({ name: 'sluice', ...options });
  return destination ? pino(opts, destination) : pino(opts);
}
