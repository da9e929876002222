// One block on the canvas: styled by group, catalog label, one-line config summary, handles
// per kind (labelled unless `next`), and error/warning badges.
import { memo, useEffect, useRef } from 'react';
import { Handle, Position, useUpdateNodeInternals, type Node, type NodeProps } from '@xyflow/react';

export interface BlockData extends Record<string, unknown> {
  kind: string;
  label: string;
  group: string;
  summary: string;
  handles: string[];
  isTrigger: boolean;
  errors: number;
  warnings: number;
  diff?: 'added' | 'removed' | 'changed';
}

export type BlockNodeType = Node<BlockData, 'block'>;

export const BlockNode = memo(function BlockNode({ id, data }: NodeProps<BlockNodeType>) {
  const n = data.handles.length;
  // Handles come and go with the config (AI branch outcomes): React Flow must re-measure them.
  const updateNodeInternals = useUpdateNodeInternals();
  const handleKey = data.handles.join('\n');
  const measuredKey = useRef(handleKey);
  useEffect(() => {
    if (measuredKey.current === handleKey) return; // the first measurement is React Flow's own
    measuredKey.current = handleKey;
    updateNodeInternals(id);
  }, [handleKey, id, updateNodeInternals]);
  return (
    <div className={`block ${data.group}${data.diff ? ` diff-${data.diff}` : ''}`} data-testid={`node-${id}`} title={`${data.kind} (${id})`}>
      {!data.isTrigger && <Handle type="target" position={Position.Top} aria-label={`Input of ${id}`} />}
      {/* The group in small capitals; the block's id as it is written (ids are case-sensitive). */}
      <div className="group">
        {data.group} <code className="node-id">{id}</code>
      </div>
      <div className="label">{data.label}</div>
      {data.summary && <div className="summary">{data.summary}</div>}
      <div className="badges">
        {data.errors > 0 && <span className="badge error" aria-label={`${data.errors} errors`}>{data.errors}</span>}
        {data.warnings > 0 && <span className="badge warning" aria-label={`${data.warnings} warnings`}>{data.warnings}</span>}
        {data.diff && <span className={`badge ${data.diff === 'added' ? 'count' : 'warning'}`}>{data.diff}</span>}
      </div>
      {data.handles.map((h, i) => {
        const left = `${((i + 1) / (n + 1)) * 100}%`;
        return (
          <div key={h}>
            <Handle type="source" id={h} position={Position.Bottom} style={{ left }} aria-label={`Output ${h} of ${id}`} />
            {h !== 'next' && <span className="handle-label" style={{ left }}>{h}</span>}
          </div>
        );
      })}
    </div>
  );
});

export const nodeTypes = { block: BlockNode };
