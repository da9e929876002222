// The workspace the toolbar's Connect made (or none), and its catalog read for the pack being
// edited: one state for the plan preview and the reference pickers (WorkspaceContext).
import { useState } from 'react';
import type { Pack } from '@setup-pack/core';
import type { Connected } from './connection.js';
import { useWorkspaceState, type WorkspaceState } from './catalog.js';

export interface ConnectedWorkspace {
  connected: Connected | undefined;
  setConnected: (c: Connected | undefined) => void;
  workspace: WorkspaceState | undefined;
}

export function useConnectedWorkspace(pack: Pack): ConnectedWorkspace {
  const [connected, setConnected] = useState<Connected | undefined>();
  const workspace = useWorkspaceState(connected, pack);
  return { connected, setConnected, workspace };
}
