// Records keyed by a pack's own keys (asset keys, resource keys, stage keys): "constructor",
// "toString" and "__proto__" are keys like any other, so they are read only as own properties and
// written as data properties, never through the prototype.

/** `rec[key]` when `rec` has it as its own property. */
export function getOwn<T>(rec: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return rec !== undefined && Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

/** Sets `rec[key]` as an own, enumerable data property (a "__proto__" key stays a key). */
export function setOwn<T>(rec: Record<string, T>, key: string, value: T): void {
  // "__proto__" is the one accessor plain objects inherit, so only it needs defineProperty; any
  // other key assigned is an own data property already (an inherited "constructor" or "toString"
  // is a writable data property, which assignment shadows). defineProperty for every key made
  // canonicalize, which copies a whole pack key by key, a tenth of validating a source folder.
  if (key === '__proto__') Object.defineProperty(rec, key, { value, enumerable: true, writable: true, configurable: true });
  else rec[key] = value;
}
