export * from './qpdf-toolkit.ts';
export * from './run-program.ts';
