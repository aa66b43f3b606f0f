// OpenTelemetry costs nothing when it is not configured: the installed command (the bundle) serving a
// namespace without OTEL_* variables never loads an OpenTelemetry module, and loads the SDK once an
// endpoint is set. A module-resolution hook registered before the command starts sees every import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSandbox } from '../src/sandbox/index.js';
import { INSTALLED_BIN, namespaceEnv, repoRoot, tempDir } from './support/namespace.js';

/** Starts `serve` (stdio) from the bundle, waits for "namespace ready", returns the modules it resolved. */
function resolvedModules(env: Record<string, string>, register: string): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', register, INSTALLED_BIN, 'serve'], {
    env: { ...env, LOG_LEVEL: 'info' },
    cwd: repoRoot,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('namespace ready')) child.stdin?.end();
    });
    child.once('exit', () => {
      if (!stderr.includes('namespace ready')) return reject(new Error(`serve did not start: ${stderr}`));
      resolve([...stderr.matchAll(/^resolved (.+)$/gm)].map((m) => m[1] as string));
    });
  });
}

test('the installed command loads no OpenTelemetry module unless OTEL_* variables ask for it', async () => {
  const dir = tempDir('warden-lazy-');
  const sandbox = await startSandbox();
  try {
    const hooks = join(dir.path, 'hooks.mjs');
    writeFileSync(
      hooks,
      'export async function resolve(specifier, context, next) {\n' +
        '  const result = await next(specifier, context);\n' +
        '  process.stderr.write(`resolved ${result.url}\\n`);\n' +
        '  return result;\n}\n',
    );
    const register = join(dir.path, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    // The bundle's files that hold OpenTelemetry code, and any module of the packages themselves.
    const bin = dirname(join(repoRoot, INSTALLED_BIN));
    const otelFiles = readdirSync(bin).filter((name) =>
      readFileSync(join(bin, name), 'utf8').includes('@opentelemetry'),
    );
    assert.ok(otelFiles.length > 0, 'the bundle holds the SDK');
    const otel = (urls: string[]) =>
      urls.filter((url) => url.includes('@opentelemetry') || otelFiles.some((name) => url.endsWith(`/${name}`)));
    const env = namespaceEnv(sandbox, 'gitea-author', { auditLog: join(dir.path, 'audit.jsonl') });
    const off = await resolvedModules(env, register);
    assert.ok(off.length > 0, 'the hook saw the command load');
    assert.deepEqual(otel(off), [], 'no OpenTelemetry module without OTEL_* variables');
    const on = await resolvedModules({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, register);
    assert.ok(otel(on).length > 0, 'the SDK loads once configured');
  } finally {
    await sandbox.close();
    dir.dispose();
  }
});
