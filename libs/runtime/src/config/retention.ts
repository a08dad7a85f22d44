import { parseRetention, type RetentionPolicy } from '@pressroom/domain';
import { Int, slice, Str } from './setting.ts';

const PLANS = ['standard', 'high'] as const;

/**
 * How long rendered files are kept, per plan. (When plans become their own configuration,
 * this per-plan retention folds into them.)
 */
export const retentionSlice = slice({
  env: {
    PRESSROOM_RETENTION_FILES: Str(
      "How long our own storage keeps a render's files (file, preview, debug report, tool outputs), per plan: plan=duration pairs, units s, m, h, d (e.g. standard=7d,high=30d). A plan not listed keeps them; empty: nothing expires. Files in a tenant's own S3 connection are never removed.",
      '',
    ),
    PRESSROOM_RETENTION_SWEEP_INTERVAL_MS: Int(
      'How often the retention sweeper lists our own storage for expired files (status projector; in one process, the standalone).',
      60000,
      100,
    ),
  },
  read(c) {
    let files: RetentionPolicy = {};
    let problem: string | undefined;
    try {
      files = parseRetention(c.PRESSROOM_RETENTION_FILES, PLANS);
    } catch (error) {
      problem = `PRESSROOM_RETENTION_FILES: ${(error as Error).message}`;
    }
    return {
      retention: {
        files,
        sweepIntervalMs: Number(c.PRESSROOM_RETENTION_SWEEP_INTERVAL_MS),
        ...(problem ? { problem } : {}),
      },
    };
  },
  check(config) {
    return config.retention.problem ? [config.retention.problem] : [];
  },
});
