import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Keys are 32 random bytes; only their SHA-256 is stored (a fast hash suffices for high-entropy secrets). */
export function generateApiKey(prefix: 'sk' | 'pk'): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
