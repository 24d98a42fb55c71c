import { Command } from 'commander';

/** Placeholder until the emulator lands: keeps the CLI's shape stable for the README and tests. */
export function emulatorCommand(): Command {
  return new Command('emulator').description('run a local stand-in for the management and alerting APIs');
}
