// A setting that makes starting impossible or unsafe: the CLI turns it into exit code 2. Shared by
// the server (loading a namespace) and the transports (their start-up checks).
export class StartupError extends Error {
  readonly exitCode = 2;
  override name = 'StartupError';
}
