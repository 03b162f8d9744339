/** The value after `name` on a command line (`--tenant acme`), if given. */
export function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}
