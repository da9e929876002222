// Shapes of a Setup Pack as TypeScript types. The limits and enums live in schemas/ only;
// these types say what fields exist so code can read a pack that passed the schema. They are held
// to the types generated from the schemas (scripts/gen-types.mjs) by schema/types-check.ts at
// build: a field, a required flag or an enum value the schema changes fails tsc until they follow.

export type NodeGroup = 'trigger' | 'action' | 'control';

export interface GraphNode {
  id: string;
  kind: string;
  config?: Record<string, unknown>;
  position?: { x: number; y: number };
  [extra: string]: unknown;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  handle?: string;
  [extra: string]: unknown;
}

export interface Graph {
  nodes: GraphNode[];
  edges?: GraphEdge[];
  [extra: string]: unknown;
}

export interface AutomationSettings {
  allow_reenrollment: boolean;
  stop_on_reply: boolean;
  daily_send_limit: number;
  send_window_start?: number | null;
  send_window_end?: number | null;
  send_window_days?: number[];
  send_window_skip_holidays?: boolean;
}

export type ReferenceType =
  | 'tag'
  | 'stage'
  | 'smart_list'
  | 'user'
  | 'team'
  | 'pond'
  | 'website'
  | 'form'
  | 'email_template'
  | 'custom_field'
  | 'pipeline'
  | 'deal_stage'
  | 'appointment_type'
  | 'appointment_outcome'
  | 'program'
  | 'relationship_label'
  | 'automation'
  | 'lead_source';

export interface Reference {
  type: ReferenceType;
  id: string;
  name?: string;
  detail?: string;
}

export interface AutomationDocument {
  format: 'service.automation-template';
  version: 1;
  exported_at?: string;
  name: string;
  description?: string;
  category?: string;
  graph: Graph;
  settings?: AutomationSettings | null;
  references?: Reference[];
}

export interface AutomationItem {
  key: string;
  document: AutomationDocument;
}

export interface FilterDocument {
  version: 2;
  root: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface SmartList {
  key: string;
  name: string;
  description?: string;
  filters: FilterDocument;
  color?: string;
  icon?: string;
}

export interface MessageTemplate {
  key: string;
  name: string;
  channel: 'sms' | 'email' | 'both';
  category?: string;
  subject?: string;
  body: string;
  richTextDoc?: Record<string, unknown> | null;
}

export type StageType = 'OPEN' | 'CLOSED_WON' | 'CLOSED_LOST';

export interface PipelineStage {
  key: string;
  name: string;
  color?: string;
  probability?: number;
  stageType?: StageType;
}

export interface Pipeline {
  key: string;
  name: string;
  description?: string;
  stages: PipelineStage[];
}

export type ResourceKind = 'tag' | 'contact_stage' | 'lead_source' | 'custom_field' | 'email_template';

export interface Resource {
  key: string;
  kind: ResourceKind;
  name: string;
  data?: Record<string, unknown>;
}

export type AssetRole = 'logo' | 'favicon' | 'social_share_image' | 'brokerage_logo' | 'team_photo' | 'source_document' | 'email_image';

export interface Asset {
  key: string;
  role: AssetRole;
  fileName: string;
  mimeType: string;
  byteSize: number;
  sha256: string;
  data?: string | null;
  url?: string | null;
  stagedFileId?: string | null;
  sourceUrl?: string | null;
}

export interface Pack {
  $schema?: string;
  format: 'service.setup-pack';
  schemaVersion: 1 | 2;
  packId: string;
  name: string;
  description?: string;
  author?: string;
  version: string;
  exportedAt?: string;
  automations?: AutomationItem[];
  smartLists?: SmartList[];
  messageTemplates?: MessageTemplate[];
  pipelines?: Pipeline[];
  resources?: Resource[];
  brand?: Record<string, unknown> | null;
  assets?: Asset[];
}

/** The pack's item arrays, in the order the spec lists them. */
export const ITEM_KINDS = ['automations', 'smartLists', 'messageTemplates', 'pipelines', 'resources', 'assets'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];
/** The item kinds a source folder's manifest lists by key (assets are described in their own index). */
export const KEYED_ITEM_KINDS = [
  'automations',
  'smartLists',
  'messageTemplates',
  'pipelines',
  'resources',
] as const satisfies readonly ItemKind[];

/** How many items a pack holds, all kinds together (what is not a list counts as none). */
export function countItems(pack: object): number {
  let n = 0;
  for (const k of ITEM_KINDS) {
    const list = (pack as Record<string, unknown>)[k];
    if (Array.isArray(list)) n += list.length;
  }
  return n;
}
