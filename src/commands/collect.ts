// Commander value collector for repeatable flags (`-f a -f b`). Lives alone so that
// the spec modules, which load on every start, import nothing heavier.
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
