import type { Plan } from '@pressroom/schemas';
import { PressroomError } from './errors.ts';

/** Features a plan may include; a refusal names the feature (`PLAN_FORBIDS_<FEATURE>`). */
export type PlanFeature = 'custom-s3';

/** Which plan has which feature: custom S3 storage on `high` only, as the contract says. */
const PLAN_FEATURES: Record<Plan, readonly PlanFeature[]> = {
  standard: [],
  high: ['custom-s3'],
};

export function planAllows(plan: Plan, feature: PlanFeature): boolean {
  return PLAN_FEATURES[plan].includes(feature);
}

/** PlanForbids happens when a tenant asks for a feature its plan does not include (403 PLAN_FORBIDS_…). */
export function planForbids(plan: Plan, feature: PlanFeature): PressroomError | undefined {
  if (planAllows(plan, feature)) return undefined;
  switch (feature) {
    case 'custom-s3':
      return new PressroomError('PLAN_FORBIDS_CUSTOM_S3', `Custom S3 storage is available on the high plan only (your plan: ${plan}).`);
  }
}
