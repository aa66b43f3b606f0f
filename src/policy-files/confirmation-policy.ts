// policies/confirmations.yaml as the pure core's ConfirmationPolicy: the operations a person confirms
// for every profile, each with its line. Loaded and linted with the policy set.
import type { ConfirmationPolicy } from '../policy/confirmations.js';
import type { Finding } from '../policy/findings.js';
import type { Vocabulary } from '../policy/vocabulary.js';
import type { LoadedDocument } from '../shared/document.js';

interface ConfirmationsFile {
  confirm: Array<{ operation: string; through?: string }>;
  expires_after_seconds: number;
}

export function buildConfirmationPolicy(doc: LoadedDocument): ConfirmationPolicy {
  const data = doc.data as ConfirmationsFile;
  return {
    file: doc.file,
    rules: data.confirm.map((entry, index) => ({
      operation: entry.operation,
      through: entry.through ?? null,
      file: doc.file,
      line: doc.lineOf(['confirm', index]),
    })),
    expiresAfterSeconds: data.expires_after_seconds,
  };
}

/** An operation outside the vocabulary would never be asked about: the confirmation would silently lapse. */
export function confirmationPolicyFindings(doc: LoadedDocument, vocabulary: Vocabulary): Finding[] {
  return (doc.data as ConfirmationsFile).confirm.flatMap((entry, index): Finding[] =>
    vocabulary.operations.has(entry.operation)
      ? []
      : [
          {
            file: doc.file,
            line: doc.lineOf(['confirm', index, 'operation']),
            severity: 'error',
            code: 'unknown_operation',
            message: `confirm names ${entry.operation}, which is not in the vocabulary, so no call would ever be asked about`,
            fix: 'use a canonical operation from policies/vocabulary.yaml',
          },
        ],
  );
}
