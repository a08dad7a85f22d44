import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ArtifactStorage,
  createFileEventLog,
  createMemoryCatalog,
  SecretBox,
  type EventLog,
  type S3ConnectionStoreFactory,
} from '@pressroom/core';
import { createLocalObjectStore, type LocalObjectStore } from '@pressroom/local-storage';

/** What a render worker runs on in the worker's specs: the embedded log and local files in a folder of their own. */
export interface EmbeddedWorkerParts {
  dir: string;
  log: EventLog;
  own: LocalObjectStore;
  storage: ArtifactStorage;
  /** Closes the log and removes the folder. */
  close(): Promise<void>;
}

export async function openEmbeddedWorkerParts(prefix: string): Promise<EmbeddedWorkerParts> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const log = await createFileEventLog({ dir: join(dir, 'log') });
  const own = createLocalObjectStore({ dir: join(dir, 'files'), publicBaseUrl: 'http://localhost:1', signingSecret: 'x'.repeat(32) });
  // Only the default target is rendered to here: tenant S3 connections are never opened.
  const noTenantS3 = {} as S3ConnectionStoreFactory;
  const storage = new ArtifactStorage({
    own,
    catalog: createMemoryCatalog(),
    secrets: new SecretBox('x'.repeat(32)),
    connectionStore: noTenantS3,
  });
  return {
    dir,
    log,
    own,
    storage,
    async close() {
      await log.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
