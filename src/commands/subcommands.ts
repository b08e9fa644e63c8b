// A group registers only the subcommand being run when the command line names one of its
// subcommands (defining every sibling's flags and help costs part of a millisecond each, on
// every start); otherwise (help, a typo to suggest for, completion) it registers them all.

/** Whether the group should register `name`, given the word after the group on the line. */
export function subcommandFilter(requested: string | undefined, names: readonly string[]): (name: string) => boolean {
  const only = requested !== undefined && names.includes(requested) ? requested : undefined;
  return (name) => only === undefined || only === name;
}
