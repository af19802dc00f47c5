// Must FAIL strict type-checking (sanity check that tsc sees the real types).
import { planTunnel } from 'hop-policy';
const plan = planTunnel({ tunnel: { id: 1 }, nodes: [] });
const n: string = plan.federation[0].nodeId;
export default n;
