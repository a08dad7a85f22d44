import type { Static } from 'typebox';
import type { FailureCode } from '@pressroom/schemas';

export type FailureCodeValue = Static<typeof FailureCode>;
