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

/**
 * CPU time a process has used so far (user + system, its threads included), in milliseconds, from
 * /proc/<pid>/stat; undefined where /proc is absent or the process is gone.
 */
export function procCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : (bytes / 1024 / 1024).toFixed(1));
