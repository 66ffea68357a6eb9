import { buildApp } from '../../src/app.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { SandboxGateway } from '../../src/gateway/sandbox-gateway.js';
import { BASE_URL, type TestApp } from './test-app.js';

/**
 * The sandbox, with the keys it was asked under, that can "crash" once: the call reaches the
 * sandbox (money moves), then the process loses the answer (as if it died before recording it).
 */
export class CrashingSandbox extends SandboxGateway {
  readonly chargeKeys: string[] = [];
  readonly refundKeys: string[] = [];
  crashAfterCharge = false;
  crashAfterRefund = false;
  crashBeforeRefund = false;

  override async charge(request: Parameters<SandboxGateway['charge']>[0]) {
    this.chargeKeys.push(request.idempotencyKey);
    const outcome = await super.charge(request);
    if (this.crashAfterCharge) {
      this.crashAfterCharge = false;
      throw new Error('connection reset after the charge');
    }
    return outcome;
  }

  override async refund(request: Parameters<SandboxGateway['refund']>[0]) {
    this.refundKeys.push(request.idempotencyKey);
    if (this.crashBeforeRefund) {
      this.crashBeforeRefund = false;
      throw new Error('connection reset before the refund');
    }
    const outcome = await super.refund(request);
    if (this.crashAfterRefund) {
      this.crashAfterRefund = false;
      throw new Error('connection reset after the refund');
    }
    return outcome;
  }
}

/** A second instance of the billing API on the test app's database whose gateway can "crash" (no refund settlement of its own). */
export async function crashingInstance(t: TestApp, options: { bulkWorker?: false } = {}) {
  const gateway = new CrashingSandbox(t.database.db);
  const app = await buildApp({
    db: t.database.db,
    catalog: t.catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    publicBaseUrl: BASE_URL,
    gateway,
    refundSettlement: false,
    ...options,
  });
  return { gateway, app };
}
