// The format's closed lists, read from the published schemas (the one statement of them), for
// code that needs them as values: the CLI's source layout, export, editor forms.
import { publishedSchemas } from '../generated/schemas.js';
import type { AssetRole, ReferenceType, ResourceKind } from '../types.js';

function enumOf<T extends string>(schema: string, property: string): readonly T[] {
  const values = (publishedSchemas[schema]?.properties as Record<string, { enum?: string[] }> | undefined)?.[property]?.enum;
  if (!values) throw new Error(`schemas/${schema}.schema.json has no enum at properties.${property}`);
  return Object.freeze([...values]) as readonly T[];
}

export const RESOURCE_KINDS = enumOf<ResourceKind>('resource', 'kind');
export const ASSET_ROLES = enumOf<AssetRole>('asset', 'role');
export const REFERENCE_TYPES = enumOf<ReferenceType>('reference', 'type');
