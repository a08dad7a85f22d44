import type { Static } from 'typebox';
import type { FailureCode } from '@pressroom/schemas';

type FailureCodeValue = Static<typeof FailureCode>;

/**
 * Whose fault a failed render is. The tenant's: its template threw, its page navigated away,
 * its page setup cannot be printed, its output is over a limit; sending the same request again
 * fails the same way. Ours: the renderer or the storage failed, and a retry may succeed.
 * A time limit is in between (an endless loop, or a slow machine) and has its own status.
 */
export type FailureFault = 'tenant' | 'timeout' | 'service';

const FAULT: Record<FailureCodeValue, FailureFault> = {
  TEMPLATE_ERROR: 'tenant',
  OUTPUT_TOO_LARGE: 'tenant',
  NAVIGATION_REFUSED: 'tenant',
  PAGE_SETUP_INVALID: 'tenant',
  RENDER_TIMEOUT: 'timeout',
  RENDER_ERROR: 'service',
  STORAGE_ERROR: 'service',
  // Retried and still crashing: we cannot tell a hostile page from a broken host, so it counts as ours.
  RENDER_CRASHED: 'service',
  // PDF tools: the caller's documents.
  INPUT_INVALID: 'tenant',
  INPUT_UNAVAILABLE: 'tenant',
  // Removed by the tenant (DELETE) or by its plan's retention: rendering it again cannot succeed.
  PAYLOAD_REMOVED: 'tenant',
};

/** Unknown codes (from a newer writer on the log) are counted as ours: never blame the caller blindly. */
export function failureFault(code: string): FailureFault {
  return (FAULT as Record<string, FailureFault | undefined>)[code] ?? 'service';
}
