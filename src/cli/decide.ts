// Placeholder until its issue lands; replaced by the real command.
export async function run(_argv: string[]): Promise<number> {
  process.stderr.write('gitea-warden decide: not built yet\n');
  return 2;
}
