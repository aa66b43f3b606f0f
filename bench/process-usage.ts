// What a process has used so far, read from /proc (Linux): the start-up rows and the server-overhead
// rows report a server's CPU time and memory beside their wall times.
import { readFileSync } from 'node:fs';

/** utime + stime of a live process from /proc/<pid>/stat (Linux, clock ticks of 10 ms); NaN elsewhere. */
export function cpuMilliseconds(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** VmRSS of a live process from /proc (Linux); NaN where /proc is not available. */
export function residentMegabytes(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const kilobytes = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kilobytes === undefined ? Number.NaN : Number(kilobytes) / 1024;
  } catch {
    return Number.NaN;
  }
}
