import { createHash } from 'node:crypto';

/** Template versions whose compiled body is kept per renderer process (each some KB). */
export const COMPILED_TEMPLATES_MAX = 500;

/**
 * A bounded LRU of strings: a Map iterates in insertion order, so a read moves its entry to the
 * end and the first entry is the least recently used.
 */
export class BoundedLru<V> {
  readonly #entries = new Map<string, V>();
  readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  get(key: string): V | undefined {
    const v = this.#entries.get(key);
    if (v === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, v);
    return v;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Eta's compiled bodies (what `compileToString` answers, made in a page), by tenant, template,
 * version and content: a template version is parsed once per renderer process, not once per
 * render. Per tenant: a body comes back from a page that ran the tenant's own code, so it is only
 * ever handed to that tenant's pages. The content's hash is in the key too: an unsaved template
 * (editor preview) has no version of its own, and a version's content never changes anyway.
 */
export const compiledTemplates = new BoundedLru<string>(COMPILED_TEMPLATES_MAX);

export function compiledTemplateKey(tenantId: string, source: { templateId: string; templateVersion: number; content: string }): string {
  const content = createHash('sha256').update(source.content).digest('hex');
  return `${tenantId}\u0000${source.templateId}\u0000${source.templateVersion}\u0000${content}`;
}
