import Type, { type Static } from 'typebox';

/** A calendar day in UTC, `YYYY-MM-DD`. */
export const UsageDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A day in UTC, YYYY-MM-DD.' });

/** `GET /v1/usage?from=…&to=…` (both days included; at most 366 days). */
export const UsageQuery = Type.Object({ from: UsageDate, to: UsageDate }, { additionalProperties: true });

/** One tenant's usage on one day (UTC), counted from render outcomes on the log. */
export const UsageDay = Type.Object(
  {
    date: UsageDate,
    tenantId: Type.String(),
    renders: Type.Object(
      {
        succeeded: Type.Integer({ minimum: 0 }),
        failed: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    /** Pages of the files rendered (a PNG counts 1). */
    pages: Type.Integer({ minimum: 0 }),
    /** Bytes of the files rendered. */
    bytes: Type.Integer({ minimum: 0 }),
    /** Time spent rendering (successes and failures), in seconds. */
    renderSeconds: Type.Number({ minimum: 0 }),
  },
  { additionalProperties: false },
);

/** The answer of `GET /v1/usage` (the caller's own days) and of the operator's `GET /admin/usage` (every tenant). */
export const UsageResponse = Type.Object({ from: UsageDate, to: UsageDate, days: Type.Array(UsageDay) }, { additionalProperties: false });

export type UsageDay = Static<typeof UsageDay>;
export type UsageResponse = Static<typeof UsageResponse>;
export type UsageQuery = Static<typeof UsageQuery>;
