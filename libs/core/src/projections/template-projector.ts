import type { EventLog, Subscription, TopicNames } from '../ports/event-log.ts';
import type { Logger } from '../ports/logger.ts';
import type { TemplateView } from '../ports/template-view.ts';

export interface TemplateProjectorDeps {
  log: EventLog;
  templates: TemplateView;
  topics: TopicNames;
  logger: Logger;
  group?: string;
  /** For a view that does not outlive the process: rebuild it from the whole log first. */
  rebuildOnStart?: boolean;
  /**
   * With `rebuildOnStart`: how to build it instead of replaying the whole log (the embedded
   * profile loads its snapshot and replays the tail, see view-snapshots.ts).
   */
  restore?: () => Promise<unknown>;
}

/**
 * Builds the template view from template events. `apply` is idempotent and forward-only, so
 * redelivery and the ingress applying the same events itself are both harmless.
 */
export async function startTemplateProjector(deps: TemplateProjectorDeps): Promise<Subscription> {
  if (deps.rebuildOnStart) await (deps.restore ? deps.restore() : rebuildTemplateView(deps));
  return deps.log.consume({
    group: deps.group ?? `${deps.topics.prefix}.template-projector`,
    topics: [deps.topics.templates],
    concurrency: 8,
    handle: async (record) => {
      if ('templateId' in record.event) await deps.templates.apply(record.event);
    },
  });
}

/** Wipes the template view and replays every template event. Returns the events applied. */
export async function rebuildTemplateView(deps: Pick<TemplateProjectorDeps, 'log' | 'templates' | 'topics' | 'logger'>): Promise<number> {
  await deps.templates.clear();
  const n = await deps.log.readAll([deps.topics.templates], async (record) => {
    if ('templateId' in record.event) await deps.templates.apply(record.event);
  });
  await deps.templates.markBuilt();
  deps.logger.info('template view rebuilt from the log', { events: n });
  return n;
}
