export * from './local-object-store.ts';
export * from './local-files-route.ts';
export { unsafeKeyReason } from './object-key.ts';
export * from './local-upload-route.ts';
