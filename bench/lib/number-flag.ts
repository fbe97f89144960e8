/** A bench's numeric flag (`--size 256`) from its argv, else the fallback. */
export function numberFlag(name: string, fallback: number, argv: readonly string[] = process.argv): number {
  const at = argv.indexOf(name);
  return at > 0 ? Number(argv[at + 1]) : fallback;
}
