// Draws a span tree as a waterfall, the way a trace viewer shows it: one row per span, indented under
// its parent, a bar from its start to its end on the root span's time axis, coloured by kind (the call
// SERVER span, the pipeline's INTERNAL stages, the CLIENT requests to Gitea). Plain SVG, no library.
import { childrenOf, type ReceivedSpan } from './otlp-receiver.js';

const ROW = 22;
const LABEL = 330;
const BARS = 560;
const COLOURS: Record<number, string> = { 1: '#6c8ebf', 2: '#d79b00', 3: '#82b366' };

export function renderTraceSvg(spans: readonly ReceivedSpan[], root: ReceivedSpan): string {
  const rows: Array<{ span: ReceivedSpan; depth: number }> = [];
  const walk = (span: ReceivedSpan, depth: number) => {
    rows.push({ span, depth });
    for (const child of childrenOf(spans, span)) walk(child, depth + 1);
  };
  walk(root, 0);
  const start = root.startNs;
  const total = Number(root.endNs - root.startNs) || 1;
  const x = (ns: bigint) => LABEL + (Number(ns - start) / total) * BARS;
  const height = (rows.length + 3) * ROW;
  const width = LABEL + BARS + 90;
  const body = rows.map(({ span, depth }, i) => {
    const y = (i + 2) * ROW;
    const left = x(span.startNs);
    const barWidth = Math.max(2, x(span.endNs) - left);
    const ms = (Number(span.endNs - span.startNs) / 1e6).toFixed(2);
    const status = span.statusCode === 2 ? ' (error)' : '';
    return [
      `<text x="${8 + depth * 14}" y="${y + 15}" class="name">${escape(span.name)}${status}</text>`,
      `<rect x="${left.toFixed(1)}" y="${y + 4}" width="${barWidth.toFixed(1)}" height="${ROW - 8}" rx="2" fill="${COLOURS[span.kind] ?? '#999'}"/>`,
      `<text x="${(left + barWidth + 4).toFixed(1)}" y="${y + 15}" class="ms">${ms} ms</text>`,
    ].join('');
  });
  const attributes = ['gitea_warden.operation', 'gitea_warden.decision', 'gitea_warden.reason']
    .map((key) => `${key}=${String(root.attributes[key] ?? '')}`)
    .join('  ');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<style>text{font-family:DejaVu Sans Mono,monospace;font-size:12px;fill:#222}.ms{fill:#555;font-size:11px}.head{font-weight:bold}</style>',
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="8" y="${ROW - 4}" class="head">trace ${root.traceId}  ${escape(attributes)}</text>`,
    `<text x="8" y="${ROW * 2 - 6}" class="ms">orange: the MCP call (SERVER)   blue: pipeline stages (INTERNAL)   green: requests to Gitea (CLIENT)</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
