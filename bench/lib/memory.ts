import { readFileSync } from 'node:fs';

/** A `kB` field of /proc/<pid>/status (VmRSS now, VmHWM peak), in bytes; undefined where /proc is absent. */
export function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls a process's resident set size and keeps the highest value: the peak of one scenario (VmHWM
 * only knows the peak since the process started).
 */
export function sampleRss(pid: number, intervalMs = 100): { stop(): number | undefined } {
  let peak = procStatusBytes(pid, 'VmRSS');
  const timer = setInterval(() => {
    const now = procStatusBytes(pid, 'VmRSS');
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const now = procStatusBytes(pid, 'VmRSS');
      return now !== undefined ? Math.max(peak ?? 0, now) : peak;
    },
  };
}

export const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : (bytes / 1024 / 1024).toFixed(1));
