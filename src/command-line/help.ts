import type { Command, Help } from 'commander';

/** Narrower than this beside the option names, a description goes on its own lines below them. */
const MIN_DESCRIPTION_WIDTH = 40;

/**
 * Help that wraps at the terminal's width (80 when not a terminal). Commander leaves a description unwrapped
 * when long option names leave it too little room beside them, so each line runs on; here it moves below
 * the option name instead, indented, and wraps there.
 */
export function wrappingHelp(command: Command): Command {
  return command.configureHelp({
    formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
      const width = this.helpWidth ?? 80;
      if (!description || width - termWidth - 4 >= MIN_DESCRIPTION_WIDTH) {
        return Object.getPrototypeOf(this).formatItem.call(this, term, termWidth, description, helper);
      }
      const indent = '      ';
      const wrapped = helper.boxWrap(description, width - indent.length);
      return `  ${term}\n${indent}${wrapped.replace(/\n/g, `\n${indent}`)}`;
    },
  });
}
