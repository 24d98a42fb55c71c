import { Command, InvalidArgumentError, Option } from 'commander';
import { Uuid } from '../cloud/schemas/common.ts';
import { timeScaleProblem } from '../base/timings.ts';
import { parseRateLimit } from './rate-limit.ts';
import type { RateLimitOption } from './rate-limit.ts';

interface EmulatorFlags {
  host: string;
  port: number;
  organizationId?: string;
  keyId?: string;
  keySecret?: string;
  alertsToken?: string;
  transitionMs?: number;
  rateLimit?: RateLimitOption;
  timeScale: number;
  unpaid?: boolean;
  stateFile?: string;
  seed: number;
}

/** commander argument parsers: each error names what is wrong; commander prefixes the flag. */
const integer = (what: string, min: number, max: number) => (text: string) => {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new InvalidArgumentError(`${what} must be an integer from ${min} to ${max}.`);
  }
  return value;
};
const nonEmpty = (what: string) => (text: string) => {
  if (text.trim() === '') throw new InvalidArgumentError(`${what} must not be empty.`);
  return text;
};

const CREDENTIAL_LABELS = {
  organizationId: 'organization id',
  keyId: 'key id',
  keySecret: 'key secret',
  alertsToken: 'alerts token',
} as const;

/** Which cloud sluice talks to is the credentials Secret's, not this command's: said where users look. */
const WHERE_SLUICE_POINTS = `
Which cloud sluice talks to is set by the credentials Secret (or the --management-url, --alerts-url flags
of plan and export): managementUrl and alertsUrl are this emulator's URL (http://127.0.0.1:8080) to try
sluice locally, or the real cloud's management and alerting API base URLs (https://...) in production.
The Secret's other keys are the printed organization id, key id, key secret and alerts token, or the
real ones. See docs/operations.md, "The credentials Secret".`;

/** `sluice emulator`: runs both cloud APIs locally until SIGINT/SIGTERM. */
export function emulatorCommand(): Command {
  return new Command('emulator')
    .description('run a local stand-in for the management and alerting APIs')
    .addHelpText('after', WHERE_SLUICE_POINTS)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', integer('port', 0, 65_535), 8080)
    .option('--organization-id <uuid>', 'organization id (generated when omitted)', (text: string) => {
      if (!Uuid.safeParse(text).success) throw new InvalidArgumentError('organization id must be a uuid.');
      return text.toLowerCase();
    })
    .option('--key-id <id>', 'management API key id (generated when omitted)', nonEmpty('key id'))
    .option(
      '--key-secret <secret>',
      'management API key secret (generated when omitted)',
      nonEmpty('key secret'),
    )
    .option('--alerts-token <token>', 'alerting API bearer token (generated when omitted)', nonEmpty('token'))
    .option(
      '--transition-ms <ms>',
      'time each state-machine step takes (0 = at once) (default: 2000, divided by --time-scale)',
      integer('transition time', 0, 3_600_000),
    )
    .addOption(
      new Option(
        '--rate-limit <limit>',
        'management rate limit per key, "off" or <n>/<s>s; off also disables alerting (default: 10/10s, its window divided by --time-scale)',
      ).argParser((text: string) => {
        try {
          return parseRateLimit(text);
        } catch (error) {
          throw new InvalidArgumentError(`rate limit ${(error as Error).message}.`);
        }
      }),
    )
    .option(
      '--time-scale <factor>',
      'for tests: the default rate-limit windows (10/10s, alerting 100/60s) and transition time run this many times faster, as `sluice run --time-scale` does',
      (text: string) => {
        const factor = text.trim() === '' ? NaN : Number(text);
        const problem = timeScaleProblem(factor, text);
        if (problem !== undefined) throw new InvalidArgumentError(`time scale ${problem}.`);
        return factor;
      },
      1,
    )
    .option('--unpaid', 'emulate a non-paid organization (lower memory bounds, no top-tier options)')
    .option(
      '--state-file <path>',
      'keep resources (and generated credentials) in this JSON file across restarts',
    )
    .option('--seed <n>', 'seed of the fault generator', integer('seed', 0, 2 ** 32 - 1), 1)
    .action(async (flags: EmulatorFlags) => {
      // Loaded here so that parsing flags (and `--help`) never pays for the server's imports.
      const { startEmulator } = await import('./server.ts');
      const { pino } = await import('pino');
      const logger = pino({ level: 'warn', base: undefined });
      let emulator: Awaited<ReturnType<typeof startEmulator>>;
      try {
        emulator = await startEmulator({ ...flags, logger });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const reason = code === 'EADDRINUSE' ? 'the address is already in use' : (error as Error).message;
        console.error(`sluice emulator: cannot start on ${flags.host}:${flags.port}: ${reason}`);
        process.exitCode = 1;
        return;
      }
      console.log(`sluice emulator listening on ${emulator.url}`);
      // Credentials not given as flags: generated now, or found in the state file.
      for (const key of Object.keys(CREDENTIAL_LABELS) as Array<keyof typeof CREDENTIAL_LABELS>) {
        if (flags[key] !== undefined) continue;
        const origin = emulator.generated.includes(key) ? 'generated' : 'from the state file';
        console.log(`  ${CREDENTIAL_LABELS[key]}: ${emulator.credentials[key]} (${origin})`);
      }
      let stopping = false;
      const shutdown = (signal: NodeJS.Signals) => {
        if (stopping) return;
        stopping = true;
        console.log(`sluice emulator: ${signal}, stopping`);
        emulator.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            console.error('sluice emulator: stop failed', error);
            process.exit(1);
          },
        );
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    });
}
