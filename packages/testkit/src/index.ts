export { validPack, text, hexColor, jsonObject, storable, EXTERNAL_NAMES, LIMITS, type ValidPackOptions } from './pack.js';
export { fuzzConfig } from './fuzz.js';
