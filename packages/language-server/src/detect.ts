// Which JSON documents are packs: a top-level "$schema" naming the pack schema, or top-level
// "format" and "packId" (a pack written without $schema). Read with jsonc-parser's scanner, which
// takes text that is not (yet) JSON; it stops as soon as it knows, and a pack's canonical form
// writes these fields first.
import { schemaId } from '@setup-pack/core';
import { createScanner, type SyntaxKind } from 'jsonc-parser';

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read: its values, as it declares them.
const OPEN_BRACE = 1 as SyntaxKind;
const CLOSE_BRACE = 2 as SyntaxKind;
const OPEN_BRACKET = 3 as SyntaxKind;
const CLOSE_BRACKET = 4 as SyntaxKind;
const COMMA = 5 as SyntaxKind;
const COLON = 6 as SyntaxKind;
const STRING = 10 as SyntaxKind;
const EOF = 17 as SyntaxKind;

const PACK_SCHEMA = schemaId('pack');
/** A local copy of the schema (schemas/pack.schema.json, or one a project keeps) counts too. */
const namesPackSchema = (v: string) => v === PACK_SCHEMA || v.endsWith('/pack.schema.json') || v === 'pack.schema.json';

export function looksLikePack(text: string): boolean {
  const scanner = createScanner(text, true);
  if (scanner.scan() !== OPEN_BRACE) return false;
  let depth = 1;
  let atKey = true;
  let key: string | undefined;
  let format = false;
  let packId = false;
  for (let t = scanner.scan(); t !== EOF; t = scanner.scan()) {
    if (depth === 1) {
      if (t === STRING && atKey) key = scanner.getTokenValue();
      else if (t === STRING && key === '$schema' && namesPackSchema(scanner.getTokenValue())) return true;
      else if (t === COMMA) atKey = true;
      else if (t === COLON) {
        atKey = false;
        format ||= key === 'format';
        packId ||= key === 'packId';
        if (format && packId) return true;
      }
    }
    if (t === OPEN_BRACE || t === OPEN_BRACKET) depth++;
    else if ((t === CLOSE_BRACE || t === CLOSE_BRACKET) && --depth === 0) return false;
  }
  return false;
}
