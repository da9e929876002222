// The rule contract: each rule module exports its metadata and its check.
import type { Diagnostic, RuleMeta } from '../diagnostics.js';
import type { GraphModel } from '../graph/model.js';

export interface ItemRef {
  value: Record<string, unknown>;
  index: number;
  pointer: string;
}

export interface AutomationRef extends ItemRef {
  document?: Record<string, unknown>;
  /** Undefined when the graph is missing or not the right shape (the schema reported it). */
  graph?: GraphModel;
}

export interface RuleContext {
  /** The parsed pack: an object, but only partly valid when schema errors exist. */
  readonly pack: Record<string, unknown>;
  /** Items of a kind that are objects, with their pointers. */
  items(kind: 'automations' | 'smartLists' | 'messageTemplates' | 'pipelines' | 'resources' | 'assets'): ItemRef[];
  automations(): AutomationRef[];
  /** A schema error sits at or below this pointer. */
  isBroken(pointer: string): boolean;
  /** Decodes base64 and hashes it; undefined when `data` is not valid base64. */
  hashBase64(data: string): { byteSize: number; sha256: string } | undefined;
  report(diagnostic: Omit<Diagnostic, 'severity' | 'code'> & Partial<Pick<Diagnostic, 'severity'>>): void;
}

export interface Rule {
  meta: RuleMeta & {
    /** Longer explanation for docs/rules.md. */
    docs?: string;
  };
  check(ctx: RuleContext): void;
}

export function defineRule(rule: Rule): Rule {
  return rule;
}
