/** ISO 8601 UTC with milliseconds and `Z`, or null. */
export function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
