// The sandbox's public surface: start one (see the API notes at the top of ./server.ts), its
// default world, and the shapes others pass in or read back.
export { startSandbox, sandboxRoutes, API_PREFIX } from './server.js';
export type { Sandbox, SandboxOptions, SandboxRequestRecord, SandboxResponseEvent } from './server.js';
export { defaultSeed, loadSeed } from './seed.js';
export type { Credentials, SandboxSeed } from './seed.js';
export { DEFAULT_PAGE_SIZE, MAX_RESPONSE_ITEMS } from './list-paging.js';
