// The flvx panel frontend's own shapes (vite-frontend/src/api/types.ts at
// upstream 2d0c993, written out here as that file declares them), passed to
// hop-policy without casts: a create payload without `id`, node rows as the
// node list API types them, the forward form's payload and the forward list's
// items, and the HopPolicyError class to narrow with.
import { planTunnel, checkTunnel, HopPolicyError } from 'hop-policy';
import type { Plan, TunnelInput, NodeRow, ForwardPayload, ForwardRow, PlanMode } from 'hop-policy';

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

// vite-frontend/src/api/types.ts at upstream 2d0c993: the forward list's items
// (POST /forward/list) and the forward form's body (/forward/create, /forward/update).
export interface ForwardApiItem {
  id: number;
  name: string;
  status: number;
  tunnelName?: string;
  tunnelTrafficRatio?: number;
  inIp?: string;
  inPort?: number;
  remoteAddr?: string;
  inFlow?: number;
  outFlow?: number;
  userId?: number;
  tunnelId?: number;
  speedId?: number | null;
  ipMaxConn?: number;
  ipSpeedId?: number | null;
  ipSpeedLimitName?: string;
  maxConn?: number;
  proxyProtocol?: number;
  inx?: number;
  [key: string]: unknown;
}

export interface ForwardMutationPayload {
  id?: number;
  name?: string;
  status?: number;
  tunnelId?: number | null;
  inIp?: string;
  inPort?: number | null;
  remoteAddr?: string;
  strategy?: string;
  speedId?: number | null;
  ipMaxConn?: number;
  ipSpeedId?: number | null;
  maxConn?: number;
  proxyProtocol?: number;
}

/** A new forward on a tunnel: the form's body as `forward`, the tunnel as the panel has it. */
export function previewForward(tunnel: TunnelMutationPayload, nodes: NodeApiItem[], form: ForwardMutationPayload): ForwardRow[] | string {
  const forward: ForwardPayload = form;
  const input: TunnelInput = { tunnel, nodes, forward, user: { id: 1, roleId: 0 } };
  const mode: PlanMode = 'forward-create';
  const plan = planTunnel(input, { mode });
  if (plan.error) return `${plan.error.code}: ${plan.error.message} (${plan.warnings.join('; ')})`;
  for (const c of plan.local) if (c.relay === true && c.failed !== undefined) return `${c.nodeId} ${c.command}: ${c.failed}`;
  return plan.db?.forward ?? [];
}

/** An edit of a listed forward: the list's items created first, the form's body as the update. */
export function previewForwardEdit(tunnel: TunnelMutationPayload, nodes: NodeApiItem[], listed: ForwardApiItem[], form: ForwardMutationPayload): Plan {
  const createForwards: ForwardPayload[] = listed;
  const edited: ForwardPayload = listed[0] ?? form;
  checkTunnel({ tunnel, nodes, createForwards, forward: edited }, { mode: 'forward-update' });
  return planTunnel({ tunnel, nodes, createForwards: listed, forward: form, offline: [2], agents: { '1': { legacy: true } } }, { mode: 'forward-update' });
}

// @ts-expect-error an inPort is a number or text, not a boolean
export const wrongForward: ForwardPayload = { inPort: true };
