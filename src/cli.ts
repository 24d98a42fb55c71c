import { Command } from 'commander';
import { createRequire } from 'node:module';
import { wrappingHelp } from './command-line/help.ts';

// One CLI for every entry point; each subcommand lives beside the code it runs and is loaded only when used,
// so `sluice emulator` never pays for the operator's imports and vice versa.
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const program = new Command('sluice')
  .description('Manage cloud database services and their pipes from Kubernetes')
  .version(version, '-v, --version')
  .showHelpAfterError();

program.addCommand((await import('./operator/command.ts')).runCommand());
program.addCommand((await import('./emulator/command.ts')).emulatorCommand());
program.addCommand((await import('./export/command.ts')).exportCommand());
program.addCommand((await import('./plan/command.ts')).planCommand());
program.addCommand((await import('./uninstall/command.ts')).uninstallCommand());

program
  .command('version')
  .description('print the sluice version')
  .action(() => console.log(version));

for (const command of [program, ...program.commands]) wrappingHelp(command);

await program.parseAsync(process.argv);
