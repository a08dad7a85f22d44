import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('./in-page/template-runtime.ts', import.meta.url));

let cached: Promise<string> | undefined;

/**
 * The page-side template runtime (eta/core plus our renderTemplate) as one classic script that
 * defines `globalThis.__pressroom`. Built once per process at renderer start-up, from the Eta
 * installed in node_modules, so the page runs exactly the Eta version the lockfile pins.
 */
export function pageRuntimeScript(): Promise<string> {
  cached ??= bundle().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error('esbuild produced no output for the page template runtime');
  return file.text;
}
