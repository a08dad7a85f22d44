import { PressroomError, type PlanLimits } from '@pressroom/domain';

/**
 * A batch larger than the tenant's plan allows (batchMaxItems): 413 PLAN_LIMIT_EXCEEDED naming
 * the rule. Larger than the API's own limit (20) stays the 400 of the batch's shape check.
 */
export function batchPlanRefusal(items: number, plan: PlanLimits | undefined): PressroomError | undefined {
  if (!plan || items <= plan.batchMaxItems) return undefined;
  return new PressroomError('PLAN_LIMIT_EXCEEDED', `Your plan takes at most ${plan.batchMaxItems} items in one batch.`, {
    details: [{ field: 'items', message: `has ${items} items; your plan's batchMaxItems is ${plan.batchMaxItems}` }],
  });
}
