// What the benchmark asks of each engine: turn a workload request into a ready-to-run decision
// (everything engine-specific prepared beforehand), which answers allow (true) or deny (false).
import type { BenchRequest } from '../workload.js';

export interface Engine {
  name: string;
  prepare(request: BenchRequest): () => boolean;
}
