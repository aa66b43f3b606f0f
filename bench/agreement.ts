// The correctness gate before any timing: every engine must answer every workload request the same
// way gitea-warden does. A disagreement means the translation (or an engine) is wrong, and timing
// engines that decide different things would compare nothing.
import type { Engine } from './engines/engine.js';
import { profileKey, type BenchRequest } from './workload.js';

export interface Disagreement {
  profile: string;
  operationId: string;
  variant: string;
  author: string | null;
  answers: Record<string, 'allow' | 'deny'>;
}

export interface AgreementReport {
  requests: number;
  allowed: number;
  disagreements: Disagreement[];
}

export function checkAgreement(engines: readonly Engine[], requests: readonly BenchRequest[]): AgreementReport {
  const disagreements: Disagreement[] = [];
  let allowed = 0;
  for (const request of requests) {
    const answers = Object.fromEntries(
      engines.map((engine) => [engine.name, engine.prepare(request)() ? 'allow' : 'deny'] as const),
    );
    const distinct = new Set(Object.values(answers));
    if (distinct.size > 1) {
      disagreements.push({
        profile: profileKey(request.profile),
        operationId: request.call.operationId,
        variant: request.call.variant,
        author: request.facts?.author ?? null,
        answers,
      });
    } else if (distinct.has('allow')) allowed++;
  }
  return { requests: requests.length, allowed, disagreements };
}
