import Type, { type Static, type TObject, type TProperties } from 'typebox';

/**
 * The building blocks of a configuration slice: every setting is a string in the environment,
 * described by a TypeBox schema with its default and its help (the README table's Meaning).
 */
export const Bool = (description: string, dflt: boolean) =>
  Type.Union([Type.Literal('true'), Type.Literal('false')], { default: String(dflt), description });
export const Int = (description: string, dflt: number, min = 0) =>
  Type.String({ pattern: '^[0-9]+$', default: String(dflt), description, 'x-min': min });
export const Str = (description: string, dflt?: string) =>
  dflt === undefined ? Type.Optional(Type.String({ minLength: 1, description })) : Type.String({ default: dflt, description });

/**
 * A slice of the configuration owned by one concern: the variables it reads (with defaults and
 * help) and how it turns them, once valid, into its typed part of the configuration. `check`
 * lists problems only visible once the whole configuration is read (profile-dependent ones).
 */
export interface ConfigSlice<E extends TProperties, C> {
  env: E;
  read(raw: Static<TObject<E>>, profile: 'embedded' | 'distributed'): C;
  check?(config: C, profile: 'embedded' | 'distributed'): string[];
}

export const slice = <E extends TProperties, C>(s: ConfigSlice<E, C>): ConfigSlice<E, C> => s;

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** An optional setting's value: absent (undefined) when unset or empty. */
export const optional = (value: string | undefined): string | undefined => value;
