// The browser entry: explicit init, then the same typed API.
import init, { planTunnel, checkDocument, type Plan } from 'hop-policy/web';

export async function preview(input: Parameters<typeof planTunnel>[0]): Promise<number> {
  await init();
  const plan: Plan = planTunnel(input);
  return checkDocument(plan).findings.length;
}
