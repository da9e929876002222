export { validPack, text, hexColor, jsonObject, storable, EXTERNAL_NAMES, LIMITS, type ValidPackOptions } from './pack.js';
export {
  nextRelease,
  handEdits,
  editRequest,
  sharingPack,
  withCopiesOf,
  NEXT_VERSION,
  type HandEdit,
  type NextReleaseOptions,
} from './evolve.js';
export { fuzzConfig } from './fuzz.js';
export { tcpPlug, type TcpPlug } from './plug.js';
