import type { TemplateEvent, TemplateVersionContent } from '@pressroom/schemas';
import { PressroomError, notFound } from './errors.ts';
import { versionConflict, type Decision, type EventMeta } from './decision.ts';
import { evolveTemplateHead, type TemplateHead } from './template-head.ts';

/**
 * What a caller asks of a template. `ifVersion` (HTTP `If-Match`) is the version the caller
 * read and means to replace; without it the command applies to whatever version is current.
 */
export type TemplateCommand =
  | { type: 'CreateTemplate'; tenantId: string; templateId: string; content: TemplateVersionContent }
  | { type: 'ReviseTemplate'; tenantId: string; templateId: string; content: TemplateVersionContent; ifVersion?: number }
  | { type: 'DeleteTemplate'; tenantId: string; templateId: string; ifVersion?: number };

/**
 * A template's stream as a decider needs it: its head, and its stream version (how many
 * events the templates topic holds for it). A live template's stream version is its latest
 * version (TemplateCreated is 1, each TemplateRevised adds one); a deleted one is final.
 */
export interface TemplateState {
  head: TemplateHead | undefined;
  streamVersion: number;
}

export const emptyTemplateState: TemplateState = { head: undefined, streamVersion: 0 };

/** Folds a template's events, in log order, into its state. */
export function evolveTemplateState(state: TemplateState, event: TemplateEvent): TemplateState {
  return { head: evolveTemplateHead(state.head, event), streamVersion: state.streamVersion + 1 };
}

/** The state of a template as the view shows it (the view holds live heads only). */
export function templateStateOf(head: TemplateHead | undefined): TemplateState {
  return head && !head.deleted ? { head, streamVersion: head.latestVersion } : emptyTemplateState;
}

/**
 * Decides a template command against the template's current state: the event to append and
 * the stream version it expects, or why not. Pure: ids and time come in `meta`.
 *
 * - Create: only on an empty stream (a template id is never reused).
 * - Revise: the next version is the current one plus one; the append expects the current one,
 *   so two revisions decided on the same version cannot both be written.
 * - Delete: removes the latest version; a deleted template is gone for every command.
 */
export function decideTemplate(command: TemplateCommand, state: TemplateState, meta: EventMeta): Decision<TemplateEvent> | PressroomError {
  const envelope = { ...meta, version: 1 as const, templateId: command.templateId, tenantId: command.tenantId };
  const live = state.head && !state.head.deleted && state.head.tenantId === command.tenantId ? state.head : undefined;
  switch (command.type) {
    case 'CreateTemplate':
      if (state.streamVersion > 0) return new PressroomError('CONFLICT', `Template ${command.templateId} exists already.`);
      return {
        expectedVersion: 0,
        events: [{ ...envelope, type: 'TemplateCreated', data: { templateVersion: 1, ...command.content } }],
      };
    case 'ReviseTemplate':
      if (!live) return notFound(`Template ${command.templateId}`);
      if (command.ifVersion !== undefined && command.ifVersion !== live.latestVersion) {
        return versionConflict(`Template ${command.templateId}`, command.ifVersion, live.latestVersion);
      }
      return {
        expectedVersion: state.streamVersion,
        events: [{ ...envelope, type: 'TemplateRevised', data: { templateVersion: live.latestVersion + 1, ...command.content } }],
      };
    case 'DeleteTemplate':
      if (!live) return notFound(`Template ${command.templateId}`);
      if (command.ifVersion !== undefined && command.ifVersion !== live.latestVersion) {
        return versionConflict(`Template ${command.templateId}`, command.ifVersion, live.latestVersion);
      }
      return {
        expectedVersion: state.streamVersion,
        events: [{ ...envelope, type: 'TemplateDeleted', data: { templateVersion: live.latestVersion } }],
      };
  }
}
