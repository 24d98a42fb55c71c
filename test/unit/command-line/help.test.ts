import { describe, expect, it } from 'vitest';
import { wrappingHelp } from '../../../src/command-line/help.ts';
import { runCommand } from '../../../src/operator/command.ts';
import { planCommand } from '../../../src/plan/command.ts';

/** The help as a terminal `columns` wide would show it. */
const helpAt = (command: ReturnType<typeof runCommand>, columns: number) =>
  wrappingHelp(command)
    .configureOutput({ getOutHelpWidth: () => columns })
    .helpInformation();

describe('command help', () => {
  it('wraps every line of run --help within 80 columns, each option named in full', () => {
    const command = runCommand();
    const text = helpAt(command, 80);
    const long = text.split('\n').filter((line) => line.length > 80);
    expect(long).toEqual([]);
    for (const option of command.options) expect(text).toContain(option.flags);
    expect(text).toMatch(/ {2}--allowed-api-hosts <host,host:port,\*\.domain>\n {6}the API hosts/);
  });

  it('keeps a description beside its option when there is room', () => {
    const text = helpAt(planCommand(), 200);
    expect(text).toMatch(/ {2}-h, --help {2,}display help for command/);
  });
});
