// Strict type-check of real calls against the generated declarations.
// Every `@ts-expect-error` line is a wrong field that must NOT type-check: if the
// declarations were `any`, these directives would be unused and tsc would fail.
import {
  planTunnel,
  planTunnelJson,
  checkDocument,
  checkDocumentJson,
  simulate,
  lifecycle,
  version,
  type TunnelInput,
  type Plan,
  type Finding,
  type CheckReport,
  type CheckOptions,
  type Scenario,
  type Trace,
  type Command,
  type Service,
  type HopPolicyErrorFields,
} from 'hop-policy';

const input: TunnelInput = {
  tunnel: {
    id: 7,
    type: 2,
    ipPreference: '',
    inNodeId: [{ nodeId: 1, protocol: 'tls', strategy: 'fifo' }],
    chainNodes: [[{ nodeId: 2, port: 44010, protocol: 'tls', strategy: 'fifo' }]],
    outNodeId: [{ nodeId: '3', port: '45001', protocol: 'tls', strategy: 'fifo' }],
  },
  nodes: [
    { id: 1, name: 'entry', serverIp: '203.0.113.1', port: '40000-40100', status: 1, isRemote: 0 },
    { id: 2, name: 'middle', serverIp: '198.51.100.12', status: 1, isRemote: 1, remoteConfig: null, remoteToken: 'x' },
  ],
  federation: { '2': { runtimeId: 31, allocatedPort: 44010, tcpListenAddr: '[::]', interfaceName: '' } },
};

const plan: Plan = planTunnel(input);
const message: string | undefined = plan.error?.message;
const sameText: string = planTunnelJson(JSON.stringify(input));
for (const step of plan.federation) {
  const role: 'exit' | 'middle' = step.role;
  const port: number = step.reserve.requestedPort;
  for (const cmd of step.commands) inspect(cmd);
  void role;
  void port;
}
for (const node of plan.nodes) {
  const roles: 'entry' | 'middle' | 'exit' = node.role;
  const hosts: string[] = node.addresses;
  void roles;
  void hosts;
}

function inspect(cmd: Command): number {
  if (cmd.command === 'AddService' && Array.isArray(cmd.data)) {
    const services: Service[] = cmd.data;
    return services.reduce((n, s) => n + (s.handler.retries ?? 0), 0);
  }
  return cmd.nodeId;
}

const options: CheckOptions = { kind: 'plan' };
const report: CheckReport = checkDocument(plan, options);
const errors: number = report.summary.errors;
const first: Finding | undefined = report.findings[0];
const fixValue = first?.fix?.value;
const severity: 'error' | 'warning' | 'info' | undefined = first?.severity;
const viaJson: string = checkDocumentJson(JSON.stringify(plan));
checkDocument({ services: [], chains: [] });
checkDocument(plan.local);

const scenario: Scenario = { dead: [3, '203.0.113.3:45001'], requests: 3 };
const trace: Trace = simulate(plan, scenario);
const requests: number = trace.requests.length;
const replay = lifecycle([{ op: 'apply' }]);
const lcFindings: Finding[] = replay.findings;
const v: string = version();

try {
  planTunnelJson('{');
} catch (e) {
  const err = e as Error & HopPolicyErrorFields;
  const code: string = err.code;
  const where: string = err.path;
  void code;
  void where;
}

// ----- wrong fields: each line must fail to type-check -----
// @ts-expect-error: the plan has no `chains` field
plan.chains;
// @ts-expect-error: nodeId is a number
const wrongId: string = plan.local[0].nodeId;
// @ts-expect-error: `kind` must be one of tunnel | plan | config | commands
checkDocument(plan, { kind: 'yaml' });
// @ts-expect-error: a finding's severity is not a number
const wrongSeverity: number = report.findings[0].severity;
// @ts-expect-error: misspelt input key
planTunnel({ tunnel: { id: 1 }, nodez: [] });
// @ts-expect-error: tunnel items need nodeId
planTunnel({ tunnel: { id: 1, inNodeId: [{ protocol: 'tls' }] }, nodes: [] });
// @ts-expect-error: plan.error may be null
const noNull: string = plan.error.message;
// @ts-expect-error: requests is a number
simulate(plan, { requests: 'three' });

void [message, sameText, errors, fixValue, severity, viaJson, requests, lcFindings, v, wrongId, wrongSeverity, noNull];

// Closed sets: known values suggest themselves, unknown strings pass, other types do not.
const closed: TunnelInput = {
  tunnel: { name: 't', type: 2, inNodeId: [{ nodeId: 1, protocol: 'kcp', strategy: 'best' }], outNodeId: [{ nodeId: 2, strategy: 'some-future-strategy' }] },
  nodes: [],
};
const wrongStrategy: TunnelInput = {
  // @ts-expect-error a strategy is a string, not a number
  tunnel: { name: 't', inNodeId: [{ nodeId: 1, strategy: 5 }] },
  nodes: [],
};
const knownCode: Finding['code'] = 'FO001';
void closed;
void wrongStrategy;
void knownCode;
