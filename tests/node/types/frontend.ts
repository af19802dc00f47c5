// The flvx panel frontend's own shapes (vite-frontend/src/api/types.ts at
// upstream 2d0c993, written out here as that file declares them), passed to
// hop-policy without casts: a create payload without `id`, node rows as the
// node list API types them, and the HopPolicyError class to narrow with.
import { planTunnel, checkTunnel, HopPolicyError } from 'hop-policy';
import type { Plan, TunnelInput, NodeRow } from 'hop-policy';

export interface NodeApiItem {
  id: number;
  name: string;
  status: number;
  inx?: number;
  remark?: string;
  expiryTime?: number;
  renewalCycle?: 'month' | 'quarter' | 'year' | '';
  expiryReminderDismissed?: number;
  syncError?: string;
  [key: string]: unknown;
}

export interface TunnelChainNodePayload {
  nodeId: number;
  protocol?: string;
  strategy?: string;
  connectIp?: string;
  chainType?: number;
  inx?: number;
}

export interface TunnelMutationPayload {
  id?: number;
  name?: string;
  type?: number;
  status?: number;
  flow?: number;
  trafficRatio?: number;
  inIp?: string;
  ipPreference?: string;
  probeTargetHost?: string;
  probeTargetPort?: number;
  inNodeId?: TunnelChainNodePayload[];
  outNodeId?: TunnelChainNodePayload[];
  chainNodes?: TunnelChainNodePayload[][];
}

export function preview(form: TunnelMutationPayload, nodes: NodeApiItem[]): Plan | string {
  const rows: NodeRow[] = nodes;
  const input: TunnelInput = { tunnel: form, nodes: rows };
  try {
    const plan = planTunnel(input);
    checkTunnel(input, { mode: 'create' });
    return plan.error ? `${plan.error.code}: ${plan.error.message}` : plan;
  } catch (e) {
    if (e instanceof HopPolicyError) return `${e.code} at ${e.path}: ${e.message}`;
    throw e;
  }
}

export function edit(before: TunnelMutationPayload, after: TunnelMutationPayload, nodes: NodeApiItem[]): Plan {
  return planTunnel({ tunnel: after, before, nodes }, { mode: 'update' });
}
