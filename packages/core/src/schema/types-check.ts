// Holds core's hand-written types (../types.ts, the reading view the code uses) to the types
// generated from the published schemas (../generated/schema-types.ts, scripts/gen-types.mjs). tsc -b
// compiles this file, so a schema change the hand types do not follow fails the build:
//   - every value the schema accepts is a value of the hand type (generated assignable to hand);
//   - each hand type names exactly the schema's properties, with the same ones required;
//   - the closed lists (enums) are the same, value for value.
// The hand types stay looser on purpose where the schema leaves a shape open (config, brand,
// filter roots are records; a node's kind is any string so the graph rules can report unknown kinds).
import type * as G from '../generated/schema-types.js';
import type * as H from '../types.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
/** The generated interfaces as plain object types (an interface has no implicit index signature, so
 * it would not be assignable to a hand type that keeps unknown extra fields). */
type Plain<T> = T extends readonly (infer E)[] ? Plain<E>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;
type Assignable<From, To> = [Plain<From>] extends [To] ? true : false;
/** Property names, without index signatures. */
type Named<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
// `{} extends Pick<T, K>` is the standard test of an optional property: {} is meant here.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
type RequiredNamed<T> = { [K in Named<T>]-?: {} extends Pick<T, K> ? never : K }[Named<T>];
type SameFields<Gen, Hand> = Equal<Named<Gen>, Named<Hand>> extends true ? Equal<RequiredNamed<Gen>, RequiredNamed<Hand>> : false;
type Settings = Exclude<NonNullable<G.PortableAutomationDocument['settings']>, null>;

export type SchemaTypeChecks = [
  Expect<Assignable<G.SetupPack, H.Pack>>,
  Expect<SameFields<G.SetupPack, H.Pack>>,
  Expect<Assignable<G.AutomationItem, H.AutomationItem>>,
  Expect<SameFields<G.AutomationItem, H.AutomationItem>>,
  Expect<Assignable<G.PortableAutomationDocument, H.AutomationDocument>>,
  Expect<SameFields<G.PortableAutomationDocument, H.AutomationDocument>>,
  Expect<Assignable<G.AutomationGraph, H.Graph>>,
  Expect<SameFields<G.AutomationGraph, H.Graph>>,
  Expect<Assignable<G.AutomationBlockGraphNode, H.GraphNode>>,
  Expect<SameFields<G.AutomationBlockGraphNode, H.GraphNode>>,
  Expect<Assignable<G.AutomationConnectionGraphEdge, H.GraphEdge>>,
  Expect<SameFields<G.AutomationConnectionGraphEdge, H.GraphEdge>>,
  Expect<Assignable<Settings, H.AutomationSettings>>,
  Expect<SameFields<Settings, H.AutomationSettings>>,
  Expect<Assignable<G.ReferenceFromAnAutomationGraphToAnItem, H.Reference>>,
  Expect<SameFields<G.ReferenceFromAnAutomationGraphToAnItem, H.Reference>>,
  Expect<Equal<G.ReferenceFromAnAutomationGraphToAnItem['type'], H.ReferenceType>>,
  Expect<Assignable<G.SmartList, H.SmartList>>,
  Expect<SameFields<G.SmartList, H.SmartList>>,
  Expect<Assignable<G.SmartListFilterDocumentVersion2, H.FilterDocument>>,
  Expect<SameFields<G.SmartListFilterDocumentVersion2, H.FilterDocument>>,
  Expect<Assignable<G.MessageTemplate, H.MessageTemplate>>,
  Expect<SameFields<G.MessageTemplate, H.MessageTemplate>>,
  Expect<Equal<G.MessageTemplate['channel'], H.MessageTemplate['channel']>>,
  Expect<Assignable<G.DealPipeline, H.Pipeline>>,
  Expect<SameFields<G.DealPipeline, H.Pipeline>>,
  Expect<Assignable<G.PipelineStage, H.PipelineStage>>,
  Expect<SameFields<G.PipelineStage, H.PipelineStage>>,
  Expect<Equal<NonNullable<G.PipelineStage['stageType']>, H.StageType>>,
  Expect<Assignable<G.Resource, H.Resource>>,
  Expect<SameFields<G.Resource, H.Resource>>,
  Expect<Equal<G.Resource['kind'], H.ResourceKind>>,
  Expect<Assignable<G.EmbeddedAsset, H.Asset>>,
  Expect<SameFields<G.EmbeddedAsset, H.Asset>>,
  Expect<Equal<G.EmbeddedAsset['role'], H.AssetRole>>,
  Expect<Equal<G.SetupPack['schemaVersion'], H.Pack['schemaVersion']>>,
  Expect<Equal<G.SetupPack['format'], H.Pack['format']>>,
];
