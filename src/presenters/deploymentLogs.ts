import type { ReadLine } from '../repositories/deploymentLogs.ts';
import type { LogLine } from '../schemas/deploymentLogs.ts';

export function presentLogLine(line: ReadLine): LogLine {
  return { seq: line.seq, stream: line.s, text: line.t, timestamp: line.ts.toISOString() };
}
