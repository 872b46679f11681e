// A JSON document kept as text (stored JSON passed on without parsing and serialising it again), typed as the
// value it encodes, so what is built from it is still checked against the shapes it must have.
declare const encodes: unique symbol;

export type JsonText<T> = string & { readonly [encodes]: T };

/** Text known to be the JSON of a T, e.g. a column a projection wrote from a T. */
export function asJsonText<T>(text: string): JsonText<T> {
  return text as JsonText<T>;
}
