// One catalog operation + validated arguments + an identity -> one HTTP call to Gitea -> one
// bounded, redacted result. Never throws for argument or upstream problems, and decides no policy.
import type { CatalogEntry } from '../catalog/types.js';
import type { GiteaIdentity } from './gitea-identity.js';
import { encodeBody, encodePath, encodeQuery, type Encoded } from './encode.js';
import { decodeBody, type BinaryData, type Decoded } from './decode.js';
import {
  errorBody,
  giteaErrorMessage,
  kindForStatus,
  missingScopes,
  stripHeaderText,
  truncateMessage,
  type ErrorBody,
} from './errors.js';
import {
  errorResult,
  successFrame,
  type EnvelopeIdentity,
  type ExecutionResult,
  type RequestLine,
} from './envelope.js';
import { GiteaHttpClient, type HttpOutcome, type HttpRequest, type HttpResponse } from './http.js';
import { readPagination, requestedPage } from './pagination.js';
import { Redactor } from './redact.js';
import { DownloadWithheld } from './archive.js';
import { isCredentialIssuing, requestBodySecrets } from './secrets.js';
import { freshCredentials, hiddenValues, secretsNote } from './reveal.js';
import { boundData, truncationNote } from './bound.js';
import { resolveExecutorOptions, type ExecutorOptions } from './options.js';
import { traceStage } from '../telemetry/tracing.js';

export interface GiteaSender {
  send(request: HttpRequest): Promise<HttpOutcome>;
}

export interface ExecutionContext {
  identity: GiteaIdentity;
  /** The login verified by the server (GET /user); shown in the envelope. */
  login: string | null;
  /** Act as this user (admin tokens): sent as the `Sudo` header. Falls back to a `sudo` argument. */
  sudo?: string | null;
  /** Defaults to a GiteaHttpClient for `identity` with the options' timeout and byte cap. */
  client?: GiteaSender;
}

export async function execute(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  context: ExecutionContext,
  overrides: Partial<ExecutorOptions> = {},
): Promise<ExecutionResult> {
  const options = resolveExecutorOptions(overrides);
  const sudo = context.sudo ?? (typeof args.sudo === 'string' && args.sudo !== '' ? args.sudo : null);
  const secrets = [context.identity.token, ...options.serverSecrets, ...requestBodySecrets(entry, args)];
  const prepared = prepareRequest(entry, args, sudo, options);
  if (!prepared.ok) return finishError(prepared.error, null, secrets, options);
  const line: RequestLine = { method: entry.method, path: prepared.value.path };
  const client =
    context.client ??
    new GiteaHttpClient(context.identity, { timeoutMs: options.timeoutMs, maxResponseBytes: options.maxResponseBytes });
  const outcome = await client.send(prepared.value);
  // Redaction, decoding and bounds: the span the trace shows beside the Gitea request.
  return traceStage('redact', () => {
    if (!outcome.ok)
      return finishError(errorBody(null, outcome.kind, outcome.message, outcome.hint), line, secrets, options);
    if (outcome.status >= 300) return finishError(upstreamError(outcome), line, secrets, options);
    const identity: EnvelopeIdentity = { login: context.login, mode: 'token', sudo };
    return finishSuccess(entry, args, outcome, { identity, line, secrets, options });
  });
}

function prepareRequest(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  sudo: string | null,
  options: ExecutorOptions,
): Encoded<HttpRequest> {
  const path = encodePath(entry, args);
  if (!path.ok) return path;
  const query = encodeQuery(entry, args);
  if (!query.ok) return query;
  const body = encodeBody(entry, args, options.maxBinaryBytes);
  if (!body.ok) return body;
  const headers: Record<string, string> = {};
  if (entry.produces.length > 0) headers.accept = entry.produces.join(', ');
  for (const param of entry.parameters.header) {
    const value = args[param.name];
    if (typeof value === 'string' || typeof value === 'number') headers[param.name] = String(value);
  }
  if (sudo !== null) headers.sudo = sudo;
  if (Object.values(headers).some((value) => /[\u0000-\u001f\u007f]/.test(value))) {
    return {
      ok: false,
      error: errorBody(
        null,
        'bad_request',
        'a header argument (sudo or a header parameter) contains control characters',
      ),
    };
  }
  return {
    ok: true,
    value: { method: entry.method, path: path.value, query: query.value, headers, body: body.value, route: entry.path },
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function upstreamError(response: HttpResponse): ErrorBody {
  const kind = kindForStatus(response.status);
  if (kind === 'redirect_refused') {
    // routers/api/v1.repoAssignment answers a renamed repository's old name with 307 to the new one.
    const renamed = /\/api\/v1\/repos\/([^/?#]+\/[^/?#]+)/.exec(response.headers.get('location') ?? '')?.[1];
    const redirect = `Gitea answered with a redirect (HTTP ${response.status})`;
    return errorBody(
      response.status,
      kind,
      renamed
        ? `${redirect} to ${safeDecode(renamed)}: the repository was renamed. ` +
            "It is not followed: call it by its new name, which the profile's repository scope judges"
        : `${redirect}, which is not followed`,
    );
  }
  const decoded = decodeBody(response.headers.get('content-type'), response.body);
  const data = decoded.form === 'binary' ? null : decoded.data;
  const scopes = missingScopes(response.status, data);
  const hint = scopes
    ? `The profile's token lacks the scope ${scopes.join(', ')}; issue a token that has it (README: token scopes per profile).`
    : undefined;
  return errorBody(response.status, kind, giteaErrorMessage(response.status, data), hint);
}

/** Error messages quote Gitea (and sometimes the request): redacted, masked, then cut. */
function finishError(
  error: ErrorBody,
  line: RequestLine | null,
  secrets: string[],
  options: ExecutorOptions,
): ExecutionResult {
  const redactor = new Redactor(secrets, { patterns: options.secretDetectionMode !== 'off' });
  let message = redactor.text(stripHeaderText(error.message));
  if (options.secretDetectionMode === 'block' && redactor.findings.kinds.size > 0) {
    message = `The error message was withheld: it contains secret-like content (${[...redactor.findings.kinds].sort().join(', ')})`;
  }
  const request = line ? { method: line.method, path: redactor.text(line.path) } : null;
  return errorResult({ ...error, message: truncateMessage(message) }, request);
}

interface SuccessContext {
  identity: EnvelopeIdentity;
  line: RequestLine;
  secrets: string[];
  options: ExecutorOptions;
}

function finishSuccess(
  entry: CatalogEntry,
  args: Record<string, unknown>,
  response: HttpResponse,
  call: SuccessContext,
): ExecutionResult {
  const { options } = call;
  const decoded = decodeBody(response.headers.get('content-type'), response.body);
  if (decoded.form === 'binary' && decoded.bytes.length > options.maxBinaryBytes) {
    const message = `The binary body is ${decoded.bytes.length} bytes, above the limit of ${options.maxBinaryBytes} (MAX_BINARY_BYTES)`;
    return finishError(
      errorBody(response.status, 'payload_too_large', message, 'Fetch a smaller file, or raise MAX_BINARY_BYTES.'),
      call.line,
      call.secrets,
      options,
    );
  }
  // The fresh credential these operations hand over is redacted too, and shown only once a person says so
  // (reveal_secrets, src/gitea/reveal.ts); nothing else in such a result is masked.
  const credential = isCredentialIssuing(entry);
  const patterns = options.secretDetectionMode !== 'off' && !credential;
  const revealable = decoded.form === 'json' ? freshCredentials(entry, decoded.data) : [];
  const redactor = new Redactor(call.secrets, { patterns, revealable, archives: options.archiveBounds });
  let data: unknown;
  try {
    data = redactData(decoded, redactor);
  } catch (error) {
    if (!(error instanceof DownloadWithheld)) throw error;
    const message = `The download was withheld: ${error.reason}. The request itself was carried out (HTTP ${response.status}).`;
    const hint =
      'Read the files one by one (contents, raw file) or a narrower path, or ask for a .zip or .tar.gz instead of a bundle; ' +
      'archives are opened only within bounds (size, entries, ratio, nesting).';
    return finishError(
      errorBody(response.status, 'download_uninspectable', message, hint),
      call.line,
      call.secrets,
      options,
    );
  }
  if (patterns && options.secretDetectionMode === 'block' && redactor.findings.kinds.size > 0) {
    const kinds = [...redactor.findings.kinds].sort().join(', ');
    const message = `The result was withheld: it contains secret-like content (${kinds}). The request itself was carried out (HTTP ${response.status}).`;
    return finishError(
      errorBody(
        response.status,
        'secret_blocked',
        message,
        'Do not repeat a write. Read a narrower resource, or ask the operator about SECRET_DETECTION_MODE.',
      ),
      call.line,
      call.secrets,
      options,
    );
  }
  const pagination = entry.annotations.paginated ? readPagination(response.headers, requestedPage(args), data) : null;
  const frame = successFrame(
    redactor.value(call.identity) as EnvelopeIdentity,
    { method: call.line.method, path: redactor.text(call.line.path) },
    response.status,
    pagination,
  );
  // Files inside a JSON result (contents), or an archive downloaded: the envelope says how each was read and whether it changed.
  const archived = decoded.form === 'binary' && redactor.files.some((f) => f.decoded_as === 'archive');
  const files =
    (decoded.form === 'json' || archived) && redactor.files.length > 0 ? { file_contents: redactor.files } : {};
  const hidden = hiddenValues(redactor.hidden);
  const note = secretsNote(hidden, credential, entry.annotations.readOnly);
  const secrets = note ? { secrets: note } : {};
  const overhead = JSON.stringify({ ...frame, ...files, ...secrets }).length;
  const bounded = boundData(data, options.maxItems, options.maxChars, overhead);
  const truncated = truncationNote(bounded.cuts, pagination, options.maxItems, options.maxChars);
  const payload = { ...frame, ...files, ...secrets, truncated, data: bounded.data };
  return { isError: false, payload, ...(hidden.length > 0 ? { hidden } : {}) };
}

function redactData(decoded: Decoded, redactor: Redactor): unknown {
  if (decoded.form !== 'binary') return redactor.value(decoded.data);
  // A raw file served as bytes: text inside is decoded, redacted and re-encoded, like a contents result.
  const bytes = redactor.fileBytes(decoded.bytes, null);
  const note = redactor.files.at(-1);
  const binary: BinaryData = {
    content_base64: bytes.toString('base64'),
    content_type: decoded.contentType,
    size: decoded.bytes.length,
    decoded_as: note?.decoded_as ?? 'binary',
    changed: note?.changed ?? false,
  };
  return binary;
}
