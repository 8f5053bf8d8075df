/**
 * A list the API server merges by key (Go's `+listType=map` with `+listMapKey`, or a
 * `patchMergeKey`): at run time a plain array; the phantom names the key fields, so that
 * {@link ApplyConfiguration} can require them in each element while leaving the rest optional.
 */
export type KeyedList<T, K extends keyof T> = T[] & {
  /** Phantom: the element fields that identify an element; never set at run time. */
  readonly __listMapKeys?: K;
};
