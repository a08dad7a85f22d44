import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { PressroomError, jsonTextProblems, validationError, type DoorLimits } from '@pressroom/domain';

/** A key that would set an object's prototype when merged (what @hapi/bourne refuses too). */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const STRICT_START = /^[ \t\n\r]*[[{]/;

const malformed = () => Object.assign(new Error('The request body is not valid JSON.'), { status: 400, type: 'entity.parse.failed' });

/**
 * JSON request bodies, bounded before they are parsed. The body is read as text (size limit,
 * Content-Encoding as before: koa-bodyparser), its nesting and number of values are read in
 * one pass (400 naming PRESSROOM_MAX_JSON_DEPTH / PRESSROOM_MAX_JSON_VALUES above them), and
 * only then is it parsed: JSON.parse costs time in the number of values, and a value nested
 * 10,000 deep overflows the stack of whatever recurses into it later.
 */
export function jsonBody(opts: { maxBodyBytes: number; limits: Pick<DoorLimits, 'jsonDepth' | 'jsonValues'> }) {
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/json'] },
    textLimit: `${opts.maxBodyBytes}b`,
    returnRawBody: true,
    onerror: (err: Error & { status?: number }) => {
      throw err;
    },
  } as bodyParser.Options);
  return async (ctx: Context, next: Next): Promise<void> => {
    await readText(ctx, async () => {
      const text = ctx.request.body;
      if (typeof text !== 'string') return; // not a JSON request: nothing was read
      if (!text) {
        ctx.request.body = {};
        return;
      }
      if (!STRICT_START.test(text)) throw malformed();
      const problems = jsonTextProblems(text, opts.limits);
      if (problems.length) throw validationError(problems);
      if (PROTO_KEY.test(text)) throw new PressroomError('VALIDATION_FAILED', 'The request body may not set "__proto__".');
      try {
        ctx.request.body = JSON.parse(text) as unknown;
      } catch {
        throw malformed();
      }
    });
    await next();
  };
}
