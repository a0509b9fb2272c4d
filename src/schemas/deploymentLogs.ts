import { z } from 'zod';
import { LOG_STREAMS } from '../domain/deploymentLogs.ts';
import { integerParam } from './page.ts';

/** docs/product.md §10: what one append may carry. */
export const LOG_LIMITS = { linesPerRequest: 1000, bytesPerRequest: 1024 * 1024, bytesPerLine: 8 * 1024, pageLines: 1000 } as const;

/** The highest seq a log can reach (a chunk's `_id` holds 12 digits; LOG_MAX_LINES is far below). */
export const MAX_SEQ = 999_999_999_999;

export const LogStream = z.enum(LOG_STREAMS).meta({ description: '`stdout` (the default), `stderr`, or `system` (said by the deployer or by Slipway itself).' });

// Characters first (the JSON Schema keyword), then UTF-8 bytes, which the keyword cannot say.
const LineText = z
  .string()
  .max(LOG_LIMITS.bytesPerLine, { message: `must be at most ${LOG_LIMITS.bytesPerLine} bytes (UTF-8)`, abort: true })
  .refine((text) => Buffer.byteLength(text, 'utf8') <= LOG_LIMITS.bytesPerLine, `must be at most ${LOG_LIMITS.bytesPerLine} bytes (UTF-8)`)
  .meta({ description: 'The line, at most 8 KiB in UTF-8. Any value of a secret configuration of the project (8 characters or longer) in it is stored as `***`.', example: 'Step 3/9 : RUN npm ci', maxLength: LOG_LIMITS.bytesPerLine });

export const AppendLogBody = z
  .object({
    lines: z
      .array(
        z
          .object({
            text: LineText,
            stream: LogStream.optional(),
            timestamp: z.iso.datetime({ offset: true }).optional().meta({ description: 'When the deployer saw the line (ISO 8601); default: when Slipway received it.', example: '2026-01-15T09:30:00.000Z' }),
          })
          .strict(),
      )
      .min(1)
      .max(LOG_LIMITS.linesPerRequest)
      .meta({ description: `1 to ${LOG_LIMITS.linesPerRequest} lines, in order; the whole request at most 1 MiB.` }),
  })
  .strict()
  .meta({ id: 'AppendLog' });
export type AppendLogBody = z.output<typeof AppendLogBody>;

export const AppendLogResult = z
  .object({
    first_seq: z.number().int().min(1).meta({ description: 'Number of the request\'s first line in the deployment\'s log.', example: 101 }),
    last_seq: z.number().int().min(1).meta({ description: 'Number of its last line: the lines are numbered first_seq..last_seq, with no other line between.', example: 150 }),
  })
  .meta({ id: 'AppendLogResult' });
export type AppendLogResult = z.output<typeof AppendLogResult>;

export const ReadLogQuery = z.strictObject({
  after: integerParam('after', 0, MAX_SEQ, 0, 'Read the lines after this seq (0: from the first). A follower resumes with `Last-Event-ID` instead, when it is sent.'),
  limit: integerParam('limit', 1, LOG_LIMITS.pageLines, 100, `Lines per page, 1–${LOG_LIMITS.pageLines}.`),
});
export type ReadLogQuery = z.output<typeof ReadLogQuery>;

export const LogLine = z
  .object({
    seq: z.number().int().min(1),
    stream: LogStream,
    text: z.string(),
    timestamp: z.string().meta({ description: 'ISO 8601 UTC with milliseconds.', format: 'date-time', example: '2026-01-15T09:30:00.000Z' }),
  })
  .meta({ id: 'LogLine' });
export type LogLine = z.output<typeof LogLine>;

export const LogPage = z
  .object({
    data: z.array(LogLine),
    next_after: z.number().int().min(0).meta({ description: 'Pass as `after` for the next page: the last seq of this one (or the `after` given, when the page is empty).' }),
    complete: z.boolean().meta({ description: 'The deployment has finished and this page reaches the last line stored. A line appended later (within 10 minutes of the finish) makes a later read longer.' }),
  })
  .meta({ id: 'LogPage' });
export type LogPage = z.output<typeof LogPage>;
