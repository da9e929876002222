// Records keyed by a pack's own keys (asset keys, resource keys, stage keys): "constructor",
// "toString" and "__proto__" are keys like any other, so they are read only as own properties and
// written as data properties, never through the prototype.

/** `rec[key]` when `rec` has it as its own property. */
export function getOwn<T>(rec: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return rec !== undefined && Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

/** Sets `rec[key]` as an own, enumerable data property (a "__proto__" key stays a key). */
export function setOwn<T>(rec: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(rec, key, { value, enumerable: true, writable: true, configurable: true });
}
