// Canonical form of a pack (key order, formatting), shared by `setup-pack fmt`, `build` and the editor.
export { canonicalize, inCanonicalOrder, formatPack } from './canonical.js';
