// Runs one of the apps' TypeScript entry points: `node scripts/run-ts.mjs apps/<app>/src/main.ts [args]`.
//
// Where Node strips types itself (Node >= 22.18: process.features.typescript), the sources run as
// they are, with no transpiler in the process: the start no longer pays for loading and
// transforming every module through tsx (1-3 s on a 2-core machine, more under load). Elsewhere
// (Node 20) tsx's loader is registered in this process first. The code is written in the syntax
// Node can strip (`erasableSyntaxOnly` in tsconfig.base.json), so both paths run the same files.
import { resolve } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: node scripts/run-ts.mjs <entry.ts> [args...]\n');
  process.exit(2);
}
// The app sees the argv it would have under `node <entry> args…` (the ops CLI parses it).
process.argv.splice(1, 2, resolve(entry));

if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(pathToFileURL(resolve(entry)).href);
