import type { Command } from 'commander';
import { parseFlags } from '../command-line/flags.ts';
import { runFlags } from '../command-line/run-flags.ts';
import { OperatorConfig } from './config.ts';

/** `sluice run`: the operator's main process. */
export function runCommand(): Command {
  return runFlags().action(async (flags: Record<string, unknown>, command: Command) => {
    const config = parseFlags(OperatorConfig, flags, command);
    // Loaded here so `sluice emulator` and `sluice --help` never import the operator.
    const { startOperator } = await import('./run.ts');
    const operator = await startOperator(config);
    // The first signal shuts down in order (the Lease goes last); a second one does not wait for that.
    const stop = () => {
      process.once('SIGINT', () => process.exit(1));
      process.once('SIGTERM', () => process.exit(1));
      void operator.stop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const how = await operator.done;
    process.exit(how === 'stopped' ? 0 : 1);
  });
}
